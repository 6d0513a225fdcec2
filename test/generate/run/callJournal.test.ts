// The call journal on a real directory: replies are kept for the records not yet done, replayed only
// for the very request that got them, superseded by a later invocation's live reply, safe against a
// torn last line, redacted, and dropped (segment files deleted) once their records are committed.
import { appendFileSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ApiKey, Logger } from '@hermes-datagen/core';
import type { ChatCompletion } from 'openai/resources/chat/completions';
import { CallJournal, JOURNAL_DIR } from '@hermes-datagen/generate/internal/run/callJournal.js';
import { tempDir } from '../../util/cli.js';

const SECRET = 'sk-journal-secret-123456';
const log = new Logger('test', new PassThrough(), { color: false });
const options = { replay: true, secret: new ApiKey(SECRET), log };
const reply = (content: string): ChatCompletion =>
  ({
    id: content,
    object: 'chat.completion',
    created: 0,
    model: 'm',
    choices: [{ index: 0, message: { role: 'assistant', content, refusal: null }, finish_reason: 'stop', logprobs: null }],
  }) as ChatCompletion;
const notDone = (): boolean => false;

function segments(runDir: string): string[] {
  return readdirSync(join(runDir, JOURNAL_DIR));
}

describe('CallJournal', () => {
  it('replays a reply for the same record, turn and request only', async () => {
    const dir = tempDir('hermes-journal-unit-');
    const first = await CallJournal.open(dir, notDone, options);
    first.session('a').record(0, 'req-0', reply('zero'));
    first.session('a').record(1, 'req-1', reply('one'));
    first.session('b').record(0, 'req-b', reply('bee'));
    await first.close();

    const second = await CallJournal.open(dir, notDone, options);
    expect(second.replayable).toBe(3);
    const a = second.session('a');
    expect(a.replay(0, 'req-0')?.id).toBe('zero');
    expect(a.replay(1, 'req-1')?.id).toBe('one');
    expect(a.replay(1, 'another request')).toBeUndefined();
    expect(a.replay(2, 'req-2')).toBeUndefined();
    expect(second.session('c').replay(0, 'req-0')).toBeUndefined();
    await second.close();
  });

  it("drops done records' replies when it opens, and a committed record's segment once nothing in it is running", async () => {
    const dir = tempDir('hermes-journal-unit-');
    const first = await CallJournal.open(dir, notDone, options);
    first.session('done').record(0, 'r', reply('x'));
    first.session('open').record(0, 'r', reply('y'));
    await first.close();
    const second = await CallJournal.open(dir, (id) => id === 'done', options);
    expect(second.replayable).toBe(1);
    expect(second.session('done').replay(0, 'r')).toBeUndefined();
    // Its one segment holds `open`'s copied reply; the earlier segment is gone.
    expect(segments(dir)).toHaveLength(1);
    second.committed('open');
    await second.close();
    expect(segments(dir)).toEqual([]);
  });

  it("a later invocation's live reply supersedes the earlier one from that turn on", async () => {
    const dir = tempDir('hermes-journal-unit-');
    const first = await CallJournal.open(dir, notDone, options);
    const session = first.session('a');
    for (let turn = 0; turn < 3; turn += 1) session.record(turn, `old-${turn}`, reply(`old ${turn}`));
    await first.close();
    const second = await CallJournal.open(dir, notDone, options);
    const resumed = second.session('a');
    expect(resumed.replay(0, 'old-0')?.id).toBe('old 0');
    // Turn 1's request differs (a tool's output changed): the prompt goes on live.
    expect(resumed.replay(1, 'new-1')).toBeUndefined();
    resumed.record(1, 'new-1', reply('new 1'));
    expect(resumed.replay(2, 'old-2')).toBeUndefined();
    await second.close();
    const third = await CallJournal.open(dir, notDone, options);
    const again = third.session('a');
    expect(again.replay(0, 'old-0')?.id).toBe('old 0');
    expect(again.replay(1, 'new-1')?.id).toBe('new 1');
    expect(again.replay(2, 'old-2')).toBeUndefined();
    await third.close();
  });

  it('skips a torn last line, and never writes the key', async () => {
    const dir = tempDir('hermes-journal-unit-');
    const first = await CallJournal.open(dir, notDone, options);
    first.session('a').record(0, 'r0', reply(`the key is ${SECRET}`));
    await first.close();
    const [segment] = segments(dir);
    const path = join(dir, JOURNAL_DIR, segment!);
    expect(readFileSync(path, 'utf8')).not.toContain(SECRET);
    appendFileSync(path, '{"id":"a","turn":1,"request":"r1","reply":{"id":"cut');
    const second = await CallJournal.open(dir, notDone, options);
    expect(second.replayable).toBe(1);
    expect(second.session('a').replay(1, 'r1')).toBeUndefined();
    await second.close();
  });

  it('--no-replay empties the journal', async () => {
    const dir = tempDir('hermes-journal-unit-');
    const first = await CallJournal.open(dir, notDone, options);
    first.session('a').record(0, 'r0', reply('zero'));
    await first.close();
    const second = await CallJournal.open(dir, notDone, { ...options, replay: false });
    expect(second.replayable).toBe(0);
    expect(second.session('a').replay(0, 'r0')).toBeUndefined();
    await second.close();
    expect(segments(dir)).toEqual([]);
    expect(existsSync(join(dir, JOURNAL_DIR))).toBe(true);
  });
});
