// The runner in-process: subcommands, help with examples, the error funnel and its exit codes.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ChecksFailedError, defineCommand, InputError, RetryableError, type CliSpec } from '@hermes-datagen/core';
import { runInProcess, tempDir } from '../util/cli.js';

function specThrowing(error: unknown): CliSpec {
  return {
    name: 'hermes-x',
    summary: 'A test CLI.',
    commands: [
      defineCommand({
        command: '$0 [files..]',
        describe: 'throws',
        stream: true,
        run: () => Promise.reject(error),
      }),
    ],
  };
}

const multi: CliSpec = {
  name: 'hermes-multi',
  summary: 'Two commands.',
  env: [['HERMES_THING', 'what the thing is']],
  commands: [
    defineCommand({
      command: 'count [files..]',
      describe: 'count records',
      stream: true,
      examples: [['$0 count a.jsonl', 'count the records of a.jsonl']],
      run: async (_args, ctx) => {
        let n = 0;
        for await (const batch of ctx.readRecords()) n += batch.length;
        ctx.io.stdout.write(`${n}\n`);
      },
    }),
    defineCommand({
      command: 'echo <word>',
      describe: 'print a word',
      options: (y) => y.positional('word', { type: 'string', demandOption: true }),
      run: async (args, ctx) => {
        ctx.io.stdout.write(`${args.word}\n`);
        return 1;
      },
    }),
  ],
};

describe('runCli', () => {
  it.each([
    ['an input error', new InputError('bad thing', { source: 'a.jsonl', line: 7 }), 3, 'hermes-x: error (at a.jsonl:7): bad thing\n'],
    ['a retryable error', new RetryableError('endpoint unreachable'), 4, 'hermes-x: error: endpoint unreachable\n'],
    ['failed checks', new ChecksFailedError('2 records failed'), 1, 'hermes-x: error: 2 records failed\n'],
  ])('maps %s to its exit code and one message', async (_name, error, code, message) => {
    const res = await runInProcess(specThrowing(error), []);
    expect(res.code).toBe(code);
    expect(res.stderr).toBe(message);
  });

  it('an unexpected exception is a bug: exit 70, says so, with the stack', async () => {
    const res = await runInProcess(specThrowing(new TypeError('x is undefined')), []);
    expect(res.code).toBe(70);
    expect(res.stderr).toMatch(/internal error, a bug in hermes-x \d+\.\d+\.\d+; please report it/);
    expect(res.stderr).toMatch(/TypeError: x is undefined\n\s+at /);
  });

  it('--stats-out records the exit code even when the run fails', async () => {
    const dir = tempDir();
    const res = await runInProcess(specThrowing(new RetryableError('down')), ['--stats-out', 'stats.json'], { cwd: dir });
    expect(res.code).toBe(4);
    const stats = JSON.parse(readFileSync(join(dir, 'stats.json'), 'utf8')) as { exit_code: number; command: string };
    expect(stats).toMatchObject({ exit_code: 4, command: 'hermes-x' });
  });

  it('runs the named subcommand with its own options and exit code', async () => {
    expect(await runInProcess(multi, ['count'], { input: '{"a":1}\n{"a":2}\n' })).toMatchObject({ code: 0, stdout: '2\n' });
    expect(await runInProcess(multi, ['echo', 'hi'])).toMatchObject({ code: 1, stdout: 'hi\n' });
  });

  it('no subcommand is a usage error that says how to get help', async () => {
    const res = await runInProcess(multi, []);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/name a command/);
    expect(res.stderr).toMatch(/try 'hermes-multi --help'/);
  });

  it('a missing positional is a usage error', async () => {
    const res = await runInProcess(multi, ['echo']);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/Not enough non-option arguments/);
  });

  it('help shows the summary, commands, environment and exit codes; subcommand help shows examples', async () => {
    const top = await runInProcess(multi, ['--help']);
    expect(top.code).toBe(0);
    expect(top.stdout).toMatch(/^hermes-multi: Two commands\./);
    expect(top.stdout).toMatch(/count \[files\.\.\]\s+count records/);
    expect(top.stdout).toMatch(/HERMES_THING\s+what the thing is/);
    expect(top.stdout).toMatch(/70 {3}internal error/);
    const sub = await runInProcess(multi, ['count', '--help']);
    expect(sub.stdout).toMatch(/hermes-multi count a\.jsonl\s+count the records of a\.jsonl/);
    expect(sub.stdout).toMatch(/--on-error/);
  });
});
