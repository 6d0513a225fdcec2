// The Unix conventions every CLI gets from core, checked on a real process (test/util/passthrough-cli.mjs):
// EPIPE with `| head`, SIGINT/SIGTERM flushing what is done to stdout and leaving no -o file, named pipes as inputs, bounded memory on a 100 MB line, help, usage errors.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonl, parseJsonl, REPO_ROOT, runProcess, tempDir } from '../util/cli.js';
import { until } from '../util/until.js';

const CLI = join(REPO_ROOT, 'test/util/passthrough-cli.mjs');

/** Resolves once the run has written part of its -o temp file, i.e. it is mid-run. */
async function midRun(dir: string): Promise<void> {
  await until(() => {
    const temp = readdirSync(dir).find((f) => f.startsWith('.out.jsonl.tmp'));
    return temp !== undefined && statSync(join(dir, temp)).size > 0;
  });
}

function records(n: number): string {
  return jsonl(Array.from({ length: n }, (_, i) => ({ n: i, pad: 'x'.repeat(200) })));
}

describe('real process conventions', () => {
  it('a closed stdout (| head -1) exits 0 quietly', async () => {
    const res = await new Promise<{ code: number | null; stderr: string; stdout: string }>((resolve) => {
      const child = spawn('bash', ['-c', `node ${CLI} | head -1`], { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
      let stderr = '';
      let stdout = '';
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.stdin.on('error', () => undefined);
      child.stdin.end(records(50_000));
      child.on('close', (code) => resolve({ code, stderr, stdout }));
    });
    expect(res.stdout.trim().split('\n')).toHaveLength(1);
    expect(res.stderr).toBe('');
    const status = await new Promise<string>((resolve) => {
      const child = spawn('bash', ['-c', `set -o pipefail; seq 1 200000 | sed 's/.*/{"n":&}/' | node ${CLI} | head -1 >/dev/null; echo "\${PIPESTATUS[2]}"`], {
        cwd: REPO_ROOT,
      });
      let out = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString()));
      child.on('close', () => resolve(out.trim()));
    });
    expect(status).toBe('0');
  });

  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    it(`${signal} stops the run: no -o file (a stopped stage has no output) and no temp file, --stats-out written, exit ${code}`, async () => {
      const dir = tempDir();
      const child = spawn(process.execPath, [CLI, '-o', 'out.jsonl', '--stats-out', 'stats.json'], { cwd: dir, stdio: ['pipe', 'pipe', 'pipe'] });
      child.stdin.on('error', () => undefined);
      // More than the writer's 1 MiB buffer, so part of it reaches the temp file while the run waits;
      // stdin stays open: the run is waiting for more input when the signal comes.
      const input = records(30_000);
      await new Promise<void>((resolve) => child.stdin.write(input, () => resolve()));
      await midRun(dir);
      child.kill(signal);
      const exit = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
      expect(exit).toBe(code);
      expect(readdirSync(dir)).toEqual(['stats.json']);
      const stats = JSON.parse(readFileSync(join(dir, 'stats.json'), 'utf8')) as { exit_code: number; counters: { records_in: number } };
      expect(stats.counters.records_in).toBeGreaterThan(0);
      expect(stats.exit_code).toBe(code);
    });

    it(`${signal} flushes every record read to stdout, exits ${code}`, async () => {
      const dir = tempDir();
      const child = spawn(process.execPath, [CLI, '--stats-out', 'stats.json'], { cwd: dir, stdio: ['pipe', 'pipe', 'pipe'] });
      child.stdin.on('error', () => undefined);
      let out = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString()));
      const input = records(30_000);
      await new Promise<void>((resolve) => child.stdin.write(input, () => resolve()));
      await until(() => out.length > 0);
      child.kill(signal);
      const exit = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
      expect(exit).toBe(code);
      const stats = JSON.parse(readFileSync(join(dir, 'stats.json'), 'utf8')) as { counters: { records_in: number } };
      expect(out.split('\n').length - 1).toBe(stats.counters.records_in);
      expect(input.startsWith(out)).toBe(true);
    });
  }

  it('a named pipe given as the input file is read as it is written, and SIGTERM while it waits for its writer ends the run', async () => {
    const dir = tempDir();
    execFileSync('mkfifo', [join(dir, 'in.jsonl')]);
    // Read whole: the writer comes after the reader has opened it.
    const reader = runProcess(CLI, ['in.jsonl'], { cwd: dir });
    const writer = await open(join(dir, 'in.jsonl'), 'w');
    await writer.write(records(3));
    await writer.close();
    const read = await reader;
    expect(read.code, read.stderr).toBe(0);
    expect(read.stdout).toBe(records(3));
    // Stopped while no writer ever came: a read waiting in the thread pool would keep it from exiting.
    const child = spawn(process.execPath, [CLI, '-o', 'out.jsonl', 'in.jsonl'], { cwd: dir, stdio: ['pipe', 'pipe', 'pipe'] });
    await until(() => readdirSync(dir).some((f) => f.startsWith('.out.jsonl.tmp')));
    child.kill('SIGTERM');
    const exit = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    expect(exit).toBe(143);
    expect(readdirSync(dir)).toEqual(['in.jsonl']);
  });

  it('a 100 MB line is rejected with bounded memory, and its neighbours survive', async () => {
    const dir = tempDir();
    const huge = Buffer.alloc(100 * 1024 * 1024, 0x61);
    const input = Buffer.concat([Buffer.from('{"n":1}\n{"s":"'), huge, Buffer.from('"}\n{"n":2}\n')]);
    const res = await runProcess(CLI, ['--on-error', 'skip', '--stats-out', join(dir, 'stats.json')], { input });
    expect(res.code).toBe(0);
    expect(parseJsonl(res.stdout)).toEqual([{ n: 1 }, { n: 2 }]);
    expect(res.stderr).toMatch(/\(at <stdin>:2\): line is longer than the limit of 33554432 bytes/);
    const stats = JSON.parse(readFileSync(join(dir, 'stats.json'), 'utf8')) as { peak_rss_mb: number };
    expect(stats.peak_rss_mb).toBeLessThan(200);
  });

  it('the same line under fail exits 3 naming it', async () => {
    const input = Buffer.concat([Buffer.from('{"s":"'), Buffer.alloc(2 * 1024 * 1024, 0x61), Buffer.from('"}\n')]);
    const res = await runProcess(CLI, ['--max-line-bytes', String(1024 * 1024)], { input });
    expect(res.code).toBe(3);
    expect(res.stderr).toMatch(/^hermes-passthrough: error \(at <stdin>:1\): line is longer than the limit of 1048576 bytes/);
  });

  it('--help lists the exit codes; --version prints the version; both exit 0', async () => {
    const help = await runProcess(CLI, ['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/Exit codes:\n {2}0 {4}ok/);
    expect(help.stdout).toMatch(/--on-error/);
    const version = await runProcess(CLI, ['--version']);
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('an unknown flag is a usage error: exit 2, one line and a hint, no stack', async () => {
    const res = await runProcess(CLI, ['--frobnicate']);
    expect(res.code).toBe(2);
    expect(res.stderr).toBe("hermes-passthrough: error: unknown option --frobnicate\nhermes-passthrough: try 'hermes-passthrough --help'\n");
    // A typo is named once, as typed (yargs' own message adds its camelCase copy), with the nearest option.
    const typo = await runProcess(CLI, ['--on-eror', 'skip', '--max-line-byte', '10']);
    expect(typo.code).toBe(2);
    expect(typo.stderr.split('\n')[0]).toBe(
      'hermes-passthrough: error: unknown options --on-eror, --max-line-byte (did you mean --on-error, --max-line-bytes?)',
    );
  });

  it('a number option given a word names the word, not NaN', async () => {
    const res = await runProcess(CLI, ['--max-line-bytes', 'lots']);
    expect(res.code).toBe(2);
    expect(res.stderr).toBe("hermes-passthrough: error: --max-line-bytes must be a number, got 'lots'\nhermes-passthrough: try 'hermes-passthrough --help'\n");
  });

  it('messages are uncoloured without a terminal and with NO_COLOR even when asked', async () => {
    const res = await runProcess(CLI, [], { input: 'bad\n', env: { NO_COLOR: '1' } });
    expect(res.stderr).not.toContain('\u001b[');
    const forced = await runProcess(CLI, ['--color'], { input: 'bad\n' });
    expect(forced.stderr).toContain('\u001b[31merror');
  });

  it('progress goes to stderr only when asked (no terminal here), never to stdout', async () => {
    const quiet = await runProcess(CLI, [], { input: records(10) });
    expect(quiet.stderr).toBe('');
    const loud = await runProcess(CLI, ['--progress'], { input: records(10) });
    expect(loud.stderr).toMatch(/hermes-passthrough: 10 records/);
    expect(parseJsonl(loud.stdout)).toHaveLength(10);
  });

  it('-o - means stdout', async () => {
    const res = await runProcess(CLI, ['-o', '-'], { input: records(3) });
    expect(parseJsonl(res.stdout)).toHaveLength(3);
    expect(existsSync(join(REPO_ROOT, '-'))).toBe(false);
  });
});
