// The shared stream options as real processes: checked before any work (exit 2 naming the option,
// nothing read, no model called), and the --rejects file every stage leaves, empty when nothing
// was rejected.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scriptedEndpoint } from '../util/scriptedEndpoint.js';
import { binPath, jsonl, REPO_ROOT, runProcess, tempDir, writeFiles } from '../util/cli.js';
import { TEST_API_KEY } from '../util/secrets.js';
import { gpt, human, system, trajectory } from '../util/trajectories.js';

const PASSTHROUGH = join(REPO_ROOT, 'test/util/passthrough-cli.mjs');
const FILTER = binPath('filter', 'hermes-filter');
const STATS = binPath('stats', 'hermes-stats');
const GENERATE = binPath('generate', 'hermes-generate');

const records = jsonl([trajectory({ conversations: [system(), human(), gpt({ think: 'Think.', text: 'Done.' })] })]);

describe('stream options are checked before any work', () => {
  it.each([
    [['--max-line-bytes', 'abc'], /--max-line-bytes must be a number, got 'abc'/],
    [['--max-line-bytes', '0'], /--max-line-bytes must be a whole number of bytes above 0 \(got 0\)/],
    [['--max-line-bytes', '-5'], /--max-line-bytes must be a whole number of bytes above 0 \(got -5\)/],
    [['--stats-out', 'missing/stats.json'], /--stats-out missing\/stats\.json: no such directory/],
    [['--rejects', 'missing/rejects.jsonl'], /--rejects missing\/rejects\.jsonl: no such directory/],
    [['-o', 'missing/out.jsonl'], /--output missing\/out\.jsonl: no such directory/],
    [['-o', '.'], /--output \.: is a directory/],
    [['-', '-'], /stdin \(-\) can be read only once/],
  ])('%j: exit 2 naming it, input not read, nothing written', async (args, message) => {
    const dir = tempDir();
    const statsOut = args.includes('--stats-out') ? [] : ['--stats-out', 'stats.json'];
    const res = await runProcess(PASSTHROUGH, [...args, ...statsOut], { input: records, cwd: dir });
    expect(res.code, res.stderr).toBe(2);
    expect(res.stderr).toMatch(message);
    expect(res.stdout).toBe('');
    expect(existsSync(join(dir, 'stats.json'))).toBe(false);
  });

  it('hermes-stats --summary in a missing directory is refused at start too', async () => {
    const dir = tempDir();
    const res = await runProcess(STATS, ['--summary', 'missing/summary.json'], { input: records, cwd: dir });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/--summary missing\/summary\.json: no such directory/);
    expect(res.stdout).toBe('');
  });

  it('hermes-generate with --stats-out in a missing directory calls no model', async () => {
    const endpoint = await scriptedEndpoint({ script: {}, apiKey: TEST_API_KEY });
    const dir = tempDir();
    const res = await runProcess(
      GENERATE,
      ['--base-url', endpoint.url, '--model', 'test-model', '--toolsets', 'terminal', '--stats-out', 'missing/stats.json'],
      {
        input: jsonl([{ prompt: 'Say hi.' }]),
        cwd: dir,
        env: { HERMES_API_KEY: TEST_API_KEY },
      },
    );
    expect(res.code, res.stderr).toBe(2);
    expect(res.stderr).toMatch(/--stats-out missing\/stats\.json: no such directory/);
    expect(endpoint.requests).toHaveLength(0);
  });

  it('hermes-generate --env-file with a malformed line: exit 2 at file:line, no model called', async () => {
    const endpoint = await scriptedEndpoint({ script: {}, apiKey: TEST_API_KEY });
    const dir = tempDir();
    writeFiles(dir, { 'run.env': `HERMES_MODEL=test-model\nHERMES_API_KEY ${TEST_API_KEY}\n` });
    const res = await runProcess(GENERATE, ['--base-url', endpoint.url, '--toolsets', 'terminal', '--env-file', 'run.env'], {
      input: jsonl([{ prompt: 'Say hi.' }]),
      cwd: dir,
    });
    expect(res.code, res.stderr).toBe(2);
    expect(res.stderr).toMatch(/--env-file run\.env:2: not a NAME=value line/);
    expect(endpoint.requests).toHaveLength(0);
  });
});

describe('--rejects is left by every stage, empty when nothing was rejected', () => {
  it.each([
    ['hermes-filter', FILTER],
    ['hermes-stats', STATS],
  ])('%s', async (_name, bin) => {
    const dir = tempDir();
    const res = await runProcess(bin, ['--rejects', 'rejects.jsonl'], { input: records, cwd: dir });
    expect(res.code, res.stderr).toBe(0);
    expect(readFileSync(join(dir, 'rejects.jsonl'), 'utf8')).toBe('');
  });

  it('hermes-generate', async () => {
    const endpoint = await scriptedEndpoint({ script: {}, apiKey: TEST_API_KEY });
    const dir = tempDir();
    const res = await runProcess(
      GENERATE,
      ['--base-url', endpoint.url, '--model', 'test-model', '--toolsets', 'terminal', '--workspace-root', 'ws', '--rejects', 'rejects.jsonl'],
      {
        input: jsonl([{ prompt: 'Say hi.' }]),
        cwd: dir,
        env: { HERMES_API_KEY: TEST_API_KEY, SHLVL: '1' },
      },
    );
    expect(res.code, res.stderr).toBe(0);
    expect(readFileSync(join(dir, 'rejects.jsonl'), 'utf8')).toBe('');
  });
});

describe('progress on a terminal', () => {
  /** stderr of the passthrough stage run on a pseudo-terminal (util-linux script), with TERM set. */
  async function onTerminal(term: string): Promise<string> {
    const dir = tempDir();
    writeFiles(dir, { 'in.jsonl': records });
    const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(PASSTHROUGH)} in.jsonl > /dev/null`;
    const { stdout } = await promisify(execFile)('script', ['-qec', command, '/dev/null'], { cwd: dir, env: { PATH: process.env['PATH'] ?? '', TERM: term } });
    return stdout;
  }

  it('under TERM=dumb holds no escape sequence (ESC[K elsewhere)', async () => {
    const dumb = await onTerminal('dumb');
    expect(dumb).toMatch(/hermes-passthrough: 1 records/);
    expect(dumb).not.toContain('\u001b');
    expect(await onTerminal('xterm')).toContain('\u001b[K');
  });
});
