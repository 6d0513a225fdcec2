// The call journal on a real directory: replies are kept for the records not yet done, replayed only
// for the very request that got them, superseded by a later invocation's live reply, safe against a
// torn last line, redacted, and dropped (segment files deleted) once their records are committed; and a
// replayed reply priced as it was paid for (through the batch API or not), whatever the resume's flags.
import { appendFileSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ApiKey, Logger } from '@hermes-datagen/core';
import type { ChatCompletion } from 'openai/resources/chat/completions';
import type { ChatClient } from '@hermes-datagen/core/endpoint';
import { AgentCalls } from '@hermes-datagen/generate/internal/agentCalls.js';
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
    first.session('a').record(0, 'req-0', reply('zero'), false);
    first.session('a').record(1, 'req-1', reply('one'), false);
    first.session('b').record(0, 'req-b', reply('bee'), false);
    await first.close();

    const second = await CallJournal.open(dir, notDone, options);
    expect(second.replayable).toBe(3);
    const a = second.session('a');
    expect(a.replay(0, 'req-0')?.reply.id).toBe('zero');
    expect(a.replay(1, 'req-1')?.reply.id).toBe('one');
    expect(a.replay(1, 'another request')).toBeUndefined();
    expect(a.replay(2, 'req-2')).toBeUndefined();
    expect(second.session('c').replay(0, 'req-0')).toBeUndefined();
    await second.close();
  });

  it("drops done records' replies when it opens, and a committed record's segment once nothing in it is running", async () => {
    const dir = tempDir('hermes-journal-unit-');
    const first = await CallJournal.open(dir, notDone, options);
    first.session('done').record(0, 'r', reply('x'), false);
    first.session('open').record(0, 'r', reply('y'), false);
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
    for (let turn = 0; turn < 3; turn += 1) session.record(turn, `old-${turn}`, reply(`old ${turn}`), false);
    await first.close();
    const second = await CallJournal.open(dir, notDone, options);
    const resumed = second.session('a');
    expect(resumed.replay(0, 'old-0')?.reply.id).toBe('old 0');
    // Turn 1's request differs (a tool's output changed): the prompt goes on live.
    expect(resumed.replay(1, 'new-1')).toBeUndefined();
    resumed.record(1, 'new-1', reply('new 1'), false);
    expect(resumed.replay(2, 'old-2')).toBeUndefined();
    await second.close();
    const third = await CallJournal.open(dir, notDone, options);
    const again = third.session('a');
    expect(again.replay(0, 'old-0')?.reply.id).toBe('old 0');
    expect(again.replay(1, 'new-1')?.reply.id).toBe('new 1');
    expect(again.replay(2, 'old-2')).toBeUndefined();
    await third.close();
  });

  it('skips a torn last line, and never writes the key', async () => {
    const dir = tempDir('hermes-journal-unit-');
    const first = await CallJournal.open(dir, notDone, options);
    first.session('a').record(0, 'r0', reply(`the key is ${SECRET}`), false);
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
    first.session('a').record(0, 'r0', reply('zero'), false);
    await first.close();
    const second = await CallJournal.open(dir, notDone, { ...options, replay: false });
    expect(second.replayable).toBe(0);
    expect(second.session('a').replay(0, 'r0')).toBeUndefined();
    await second.close();
    expect(segments(dir)).toEqual([]);
    expect(existsSync(join(dir, JOURNAL_DIR))).toBe(true);
  });
});

describe('AgentCalls over the journal', () => {
  // 1M input tokens a call at $2 a million, half that through the batch API.
  const prices = new Map([['m', { input: 2, output: 8, batch_discount: 0.5 }]]);
  const priced = (content: string): ChatCompletion => ({
    ...reply(content),
    usage: { prompt_tokens: 1_000_000, completion_tokens: 0, total_tokens: 1_000_000 },
  });
  const body = (turn: number) => ({ model: 'm', messages: [{ role: 'user' as const, content: `turn ${turn}` }] });
  const answering = (seen: string[]): ChatClient => ({
    chat: {
      completions: {
        create: async (request) => {
          seen.push(String(request.messages[0]?.content));
          return priced(`live ${seen.length}`);
        },
      },
    },
  });

  it('prices a replayed reply as it was paid for: a batch reply at the batch price on a resume without --batch-api, and back', async () => {
    const dir = tempDir('hermes-journal-prices-');
    const first = await CallJournal.open(dir, notDone, options);
    const batched = new AgentCalls(answering([]), 'm', { prices, batch: true }, first.session('a'), 'a');
    for (const turn of [0, 1]) await batched.client.chat.completions.create(body(turn));
    expect(batched.costUsd).toBe(2);
    await first.close();
    expect(readFileSync(join(dir, JOURNAL_DIR, segments(dir)[0]!), 'utf8')).toContain('"batch":true');

    // Resumed without --batch-api: the two batch replies replayed at their price, the third call live at the full one.
    const second = await CallJournal.open(dir, notDone, options);
    const seen: string[] = [];
    const resumed = new AgentCalls(answering(seen), 'm', { prices }, second.session('a'));
    for (const turn of [0, 1, 2]) await resumed.client.chat.completions.create(body(turn));
    expect([resumed.replayed, seen, resumed.costUsd]).toEqual([2, ['turn 2'], 4]);
    await second.close();

    // And under --batch-api again: the synchronous third reply keeps its full price.
    const third = await CallJournal.open(dir, notDone, options);
    const again = new AgentCalls(answering([]), 'm', { prices, batch: true }, third.session('a'), 'a');
    for (const turn of [0, 1, 2]) await again.client.chat.completions.create(body(turn));
    expect([again.replayed, again.costUsd]).toEqual([3, 4]);
    await third.close();
  });
});
