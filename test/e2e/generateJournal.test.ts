// The call journal end to end: a run killed with SIGKILL and resumed buys again at most the replies
// that were on the wire at each kill (the endpoint counts what it was asked), and a resumed prompt
// whose tool output changed stops replaying at the divergence and goes on live.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Trajectory } from '@hermes-datagen/core';
import type { ScriptedEndpoint } from '@hermes-datagen/testkit';
import { scriptedEndpoint } from '../util/scriptedEndpoint.js';
import { jsonl, parseJsonl, tempDir } from '../util/cli.js';
import { expectNoSecret, startGenerate, TEST_MODEL, type EndedGenerate } from '../util/generate.js';

/** One invocation of the run; `killWhen` SIGKILLs it once it holds. */
function invoke(url: string, dir: string, args: readonly string[], killWhen?: () => boolean): Promise<EndedGenerate> {
  const run = ['prompts.jsonl', '--base-url', url, '--model', TEST_MODEL, '--run-name', 'journal', '--workspace-root', join(dir, 'workspaces')];
  return startGenerate(dir, [...run, ...args], { killWhen }).ended;
}

const chatRequests = (server: ScriptedEndpoint): number => server.requests.filter((r) => r.path.endsWith('/chat/completions')).length;

function runRecords(dir: string): Trajectory[] {
  const run = join(dir, 'data', 'journal');
  return readdirSync(run)
    .filter((name) => /^batch_\d+\.jsonl$/.test(name))
    .flatMap((name) => parseJsonl(readFileSync(join(run, name), 'utf8')) as Trajectory[]);
}

function journalLines(dir: string): number {
  const journal = join(dir, 'data', 'journal', 'journal');
  if (!existsSync(journal)) return 0;
  return readdirSync(journal).reduce((n, name) => n + readFileSync(join(journal, name), 'utf8').split('\n').filter(Boolean).length, 0);
}

describe('the call journal', () => {
  it('a run killed twice and resumed buys again at most the calls on the wire at each kill', async () => {
    const server = await scriptedEndpoint({ latencyMs: 60 });
    const dir = tempDir('hermes-journal-');
    // The rule-based policy plans several file-tool calls for each of these prompts.
    const prompts = Array.from({ length: 16 }, (_, i) => ({ id: `p${i}`, prompt: `Write a python script that prints ${i} and check it (task ${i})` }));
    writeFileSync(join(dir, 'prompts.jsonl'), jsonl(prompts));
    const concurrency = 4;
    const args = ['--toolsets', 'file', '--max-concurrency', String(concurrency), '--batch-size', '2'];

    // Kills land mid-trajectory, at random points: after 10-40 requests reached the endpoint, then 10-40 more.
    const firstKill = 10 + Math.floor(Math.random() * 31);
    const secondKill = firstKill + 10 + Math.floor(Math.random() * 31);
    const first = await invoke(server.url, dir, args, () => chatRequests(server) >= firstKill);
    expect(first.signal).toBe('SIGKILL');
    expect(journalLines(dir)).toBeGreaterThan(0);
    const second = await invoke(server.url, dir, [...args, '--resume'], () => chatRequests(server) >= secondKill);
    expect(second.signal).toBe('SIGKILL');
    const last = await invoke(server.url, dir, [...args, '--resume']);
    expect(last.code, last.stderr).toBe(0);

    const records = runRecords(dir);
    expect(new Set(records.map((r) => r.id)).size).toBe(prompts.length);
    expect(records).toHaveLength(prompts.length);
    const callsInTrajectories = records.reduce((n, r) => n + r.api_calls, 0);
    const answered = chatRequests(server);
    // At most one reply per prompt slot was on the wire at each kill; everything else was journaled.
    expect(answered).toBeLessThanOrEqual(callsInTrajectories + concurrency * 2);
    const replayed = records.reduce((n, r) => n + (r.metadata.replayed_calls ?? 0), 0);
    expect(replayed).toBeGreaterThan(0);
    const statistics = JSON.parse(readFileSync(join(dir, 'data', 'journal', 'statistics.json'), 'utf8')) as { replayed_calls?: number };
    expect(statistics.replayed_calls).toBe(replayed);
    // The finished run's journal holds nothing: every record is committed.
    expect(journalLines(dir)).toBe(0);
    for (const run of [first, second, last]) expectNoSecret(dir, run);
  }, 240_000);

  /**
   * A prompt reads data.txt twice, then answers. The first invocation is killed while its third
   * call waits (two replies journaled); before the resume, data.txt is left as it was or changed.
   */
  async function resumedAfterKill(change: boolean): Promise<{ answeredOnResume: number; record: Trajectory }> {
    const read = { name: 'read_file', arguments: { path: 'data.txt' } };
    const server = await scriptedEndpoint({
      script: {
        sequences: [
          {
            match: { contains: 'data.txt' },
            replies: [
              { reasoning: 'Read it.', tool_calls: [read] },
              { reasoning: 'Read it again.', tool_calls: [read] },
              { reasoning: 'Done.', content: 'The file is read.' },
            ],
          },
        ],
        faults: [{ kind: 'slow', when: { step: 2 }, delay_ms: 1500 }],
      },
    });
    const dir = tempDir('hermes-journal-diverge-');
    mkdirSync(join(dir, 'input'));
    writeFileSync(join(dir, 'input', 'data.txt'), 'first version\n');
    writeFileSync(join(dir, 'prompts.jsonl'), jsonl([{ id: 'reader', prompt: 'Look at data.txt', cwd: 'input' }]));
    const args = ['--toolsets', 'file'];
    const killed = await invoke(server.url, dir, args, () => chatRequests(server) >= 3 && journalLines(dir) >= 2);
    expect(killed.signal).toBe('SIGKILL');
    if (change) writeFileSync(join(dir, 'input', 'data.txt'), 'second version\n');
    const before = chatRequests(server);
    const resumed = await invoke(server.url, dir, [...args, '--resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    const [record] = parseJsonl(resumed.stdout) as Trajectory[];
    if (record === undefined) throw new Error(`no record: ${resumed.stderr}`);
    return { answeredOnResume: chatRequests(server) - before, record };
  }

  it('a resumed prompt replays its journaled replies while its requests match', async () => {
    const { answeredOnResume, record } = await resumedAfterKill(false);
    expect(record.metadata.replayed_calls).toBe(2);
    expect(answeredOnResume).toBe(1);
    expect(record.api_calls).toBe(3);
  });

  it('a tool whose output changed ends the replay there: the prompt goes on live with the new output', async () => {
    const { answeredOnResume, record } = await resumedAfterKill(true);
    // The first request is the prompt alone and replays; the second carries the new file and does not.
    expect(record.metadata.replayed_calls).toBe(1);
    expect(answeredOnResume).toBe(2);
    expect(JSON.stringify(record.conversations)).toContain('second version');
    expect(JSON.stringify(record.conversations)).not.toContain('first version');
  });

  it('a sub-agent replays its own journaled replies, under its own record id, as its parent does', async () => {
    const server = await scriptedEndpoint({
      script: {
        sequences: [
          {
            match: { contains: 'split' },
            replies: [
              { reasoning: 'One part.', tool_calls: [{ name: 'delegate_task', arguments: { tasks: [{ prompt: 'sub part' }] } }] },
              { reasoning: 'Done.', content: 'combined' },
            ],
          },
          {
            match: { contains: 'sub part' },
            replies: [
              { reasoning: 'Plan it.', tool_calls: [{ name: 'todo', arguments: { todos: [{ id: '1', content: 'the part', status: 'completed' }] } }] },
              { reasoning: 'Mine.', content: 'sub answer' },
            ],
          },
        ],
        // The sub-agent's second call waits: the kill comes while it does.
        faults: [{ kind: 'slow', when: { prompt: { contains: 'sub part' }, step: 1 }, delay_ms: 1500 }],
      },
    });
    const dir = tempDir('hermes-journal-sub-');
    writeFileSync(join(dir, 'prompts.jsonl'), jsonl([{ id: 'root', prompt: 'split this' }]));
    const args = ['--toolsets', 'delegation,todo'];
    // The root's first reply and the sub-agent's first reply are journaled; the sub-agent's second is on the wire.
    const killed = await invoke(server.url, dir, args, () => chatRequests(server) >= 3 && journalLines(dir) >= 2);
    expect(killed.signal).toBe('SIGKILL');
    const before = chatRequests(server);
    const resumed = await invoke(server.url, dir, [...args, '--resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    const records = parseJsonl(resumed.stdout) as Trajectory[];
    const root = records.find((r) => r.id === 'root');
    const sub = records.find((r) => r.metadata.parent_id === 'root');
    expect(root?.metadata.replayed_calls).toBe(1);
    expect(sub?.metadata.replayed_calls).toBe(1);
    // Asked again: the sub-agent's second call and the root's second; nothing that was journaled.
    expect(chatRequests(server) - before).toBe(2);
  });

  it('--no-replay asks for every call again', async () => {
    const server = await scriptedEndpoint({ latencyMs: 100 });
    const dir = tempDir('hermes-journal-noreplay-');
    writeFileSync(join(dir, 'prompts.jsonl'), jsonl([{ id: 'one', prompt: 'Write a python script that prints 1 and check it' }]));
    const args = ['--toolsets', 'file'];
    const killed = await invoke(server.url, dir, args, () => journalLines(dir) >= 2);
    expect(killed.signal).toBe('SIGKILL');
    const before = chatRequests(server);
    const resumed = await invoke(server.url, dir, [...args, '--resume', '--no-replay']);
    expect(resumed.code, resumed.stderr).toBe(0);
    const [record] = parseJsonl(resumed.stdout) as Trajectory[];
    expect(record?.metadata.replayed_calls).toBeUndefined();
    expect(chatRequests(server) - before).toBe(record?.api_calls);
  });
});
