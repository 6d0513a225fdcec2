// The README works as typed: every shell block of README.md and docs/*.md runs, in order, in a scratch copy
// of the repository after `make demo`, with PATH as a new user's shell has it (no node_modules/.bin: the
// bins are called as `npx hermes-...`). A block marked no-run (it needs a real endpoint or a network) is
// checked for syntax and for options its bin does not have; a quoted output is compared with what the
// command printed, so the figures the Markdown gives cannot drift. The markers: docs/testing.md.
// A failure names the block's file:line.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../util/cli.js';
import {
  type Block,
  hermesInvocations,
  helpOptions,
  type Invocation,
  markdownBlocks,
  missingOutputLines,
  type ShellBlock,
  unknownOptions,
} from '../util/readmeBlocks.js';
import { runSession } from '../util/readmeSession.js';

/** README.md first, then docs/*.md in name order: the order a reader meets them in. */
const FILES = [
  'README.md',
  ...readdirSync(join(REPO_ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
];
const BLOCKS = new Map<string, Block[]>(FILES.map((file) => [file, markdownBlocks(file, readFileSync(join(REPO_ROOT, file), 'utf8'))]));

/** What a copy of the repository needs, without installed packages, build output of earlier runs or data. */
const NOT_COPIED = new Set(['node_modules', '.git', 'demo-output', 'data', 'bench/data', 'bench/results', '.vitest.json']);

let scratch = '';
let demoOutput = '';

/** A new user's environment: their PATH without any node_modules/.bin, and none of this run's variables. */
function newUserEnv(): NodeJS.ProcessEnv {
  const path = (process.env['PATH'] ?? '')
    .split(':')
    .filter((dir) => !dir.includes('node_modules'))
    .join(':');
  const keep =
    /^(HOME|USER|LOGNAME|SHELL|LANG|LC_ALL|TMPDIR|(https?|no)_proxy|(HTTPS?|NO)_PROXY|npm_config_(registry|proxy|https_proxy|noproxy|cafile|strict_ssl|cache))$/;
  return { ...Object.fromEntries(Object.entries(process.env).filter(([key]) => keep.test(key))), PATH: path, TERM: 'dumb' };
}

function run(command: string, cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', `${command} 2>&1`], { cwd, env: newUserEnv(), stdio: ['ignore', 'pipe', 'inherit'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output: Buffer.concat(chunks).toString('utf8') }));
  });
}

const helps = new Map<string, { text: string; options: Set<string> }>();

/** The options of `hermes-X [command] --help`, from the built bin. */
function optionsOf(invocation: Invocation): Set<string> {
  const pkg = invocation.bin.replace(/^hermes-/, '');
  const bin = join(REPO_ROOT, 'packages', pkg, 'bin', `${invocation.bin}.js`);
  const main = help(bin, []);
  const commands = new Set([...main.text.matchAll(new RegExp(`^\\s+${invocation.bin} ([a-z][a-z-]*)`, 'gm'))].map((m) => m[1]));
  const command = invocation.command !== undefined && commands.has(invocation.command) ? invocation.command : undefined;
  return command === undefined ? main.options : help(bin, [command]).options;
}

/** A bin's help text and the options it lists, asked once per bin and command. */
function help(bin: string, command: string[]): { text: string; options: Set<string> } {
  const key = [bin, ...command].join(' ');
  let found = helps.get(key);
  if (found === undefined) {
    const text = spawnSync(process.execPath, [bin, ...command, '--help'], { encoding: 'utf8' }).stdout;
    found = { text, options: helpOptions(text) };
    helps.set(key, found);
  }
  return found;
}

function shellBlocks(file: string): ShellBlock[] {
  return (BLOCKS.get(file) ?? []).filter((block): block is ShellBlock => block.kind === 'shell');
}

describe('every shell block of README.md and docs/*.md, run or not', () => {
  it('parses (bash -n), calls the bins through npx, and passes only options their --help lists', () => {
    const problems: string[] = [];
    for (const file of FILES) {
      for (const block of shellBlocks(file)) {
        const syntax = spawnSync('bash', ['-n'], { input: block.script, encoding: 'utf8' });
        if (syntax.status !== 0) problems.push(`${block.place}: not valid shell: ${syntax.stderr.trim()}`);
        for (const invocation of hermesInvocations(block.script)) {
          if (!invocation.npx) problems.push(`${block.place}: ${invocation.bin} is not on a new user's PATH: call it as npx ${invocation.bin}`);
          const unknown = unknownOptions(invocation, optionsOf(invocation));
          const name = [invocation.bin, invocation.command].filter(Boolean).join(' ');
          if (unknown.length > 0) problems.push(`${block.place}: ${name} has no option ${unknown.join(', ')} (see ${name} --help)`);
        }
      }
    }
    expect(problems, problems.join('\n')).toEqual([]);
  });
});

describe('every shell block of README.md and docs/*.md that runs', () => {
  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'hermes-readme-'));
    for (const entry of readdirSync(REPO_ROOT)) {
      if (NOT_COPIED.has(entry)) continue;
      cpSync(join(REPO_ROOT, entry), join(scratch, entry), {
        recursive: true,
        preserveTimestamps: true,
        filter: (source) => {
          const relative = source.slice(REPO_ROOT.length);
          return !NOT_COPIED.has(relative) && !relative.split('/').includes('node_modules');
        },
      });
    }
    // The installed packages, each linked (not the directory itself: a tool that replaced it would empty
    // this checkout's), so that npx finds the bins from the copy as from a clone after `make setup`.
    mkdirSync(join(scratch, 'node_modules'));
    for (const entry of readdirSync(join(REPO_ROOT, 'node_modules'))) symlinkSync(join(REPO_ROOT, 'node_modules', entry), join(scratch, 'node_modules', entry));
    // `make demo` is `make setup` (done: the suite's global setup built the bins) and then this script.
    const demo = await run('bash fixtures/demo/run-demo.sh', scratch);
    expect(demo.code, `make demo failed in the scratch copy:\n${demo.output}`).toBe(0);
    demoOutput = demo.output;
  }, 600_000);

  afterAll(() => {
    if (scratch !== '') rmSync(scratch, { recursive: true, force: true });
  });

  for (const file of FILES.filter((f) => shellBlocks(f).some((block) => block.run))) {
    it(`${file}: runs as typed in one new shell, and prints what it quotes`, async () => {
      const blocks = BLOCKS.get(file) ?? [];
      const runnable = shellBlocks(file).filter((block) => block.run);
      const session = await runSession(runnable, scratch, newUserEnv());
      const failure = session.failure;
      expect(
        failure,
        failure &&
          `${failure.block.place}: the block exited ${failure.code}:\n${failure.block.script}\n--- its output (last 4000 characters) ---\n${failure.output.slice(-4000)}`,
      ).toBeUndefined();
      const problems: string[] = [];
      let previous: ShellBlock | undefined;
      for (const block of blocks) {
        if (block.kind === 'shell') {
          previous = block;
          continue;
        }
        if (block.of === 'previous' && (previous === undefined || !previous.run)) {
          problems.push(`${block.place}: the quoted output follows no block that runs`);
          continue;
        }
        const actual = block.of === 'demo' ? demoOutput : (session.outputs[runnable.indexOf(previous as ShellBlock)] ?? '');
        const missing = missingOutputLines(block.text, actual);
        const source = block.of === 'demo' ? 'make demo' : `the block at ${previous?.place}`;
        if (missing.length > 0)
          problems.push(`${block.place}: ${source} printed none of these quoted lines:\n  ${missing.join('\n  ')}\n--- it printed ---\n${actual}`);
      }
      expect(problems, problems.join('\n')).toEqual([]);
    }, 1_200_000);
  }
});

describe('the README test itself', () => {
  it('reads the markers, and names the file:line of a failing block, an unknown option and a drifted figure', async () => {
    const markdown = [
      '```sh',
      'export GREETING=hello',
      '```',
      '<!-- readme-test: output -->',
      '```text',
      '```',
      '```sh',
      'echo "$GREETING, 42 records in 1.5 s"',
      '```',
      '<!-- readme-test: output -->',
      '```text',
      'hello, 42 records in 3 s',
      'hello, 41 records ...',
      '```',
      '<!-- readme-test: no-run -->',
      '```sh',
      'npx hermes-filter --invert --no-color --inverted x.jsonl | hermes-stats sql "SELECT --x" --db a.duckdb',
      '```',
      '```console',
      '$ false',
      'printed',
      '```',
    ].join('\n');
    const blocks = markdownBlocks('x.md', markdown);
    expect(blocks.map((b) => `${b.kind} ${b.place}${b.kind === 'shell' ? ` ${b.run}` : ''}`)).toEqual([
      'shell x.md:1 true',
      'output x.md:5',
      'shell x.md:7 true',
      'output x.md:11',
      'shell x.md:16 false',
      'shell x.md:19 true',
    ]);
    const [filter, stats] = hermesInvocations((blocks[4] as ShellBlock).script);
    expect(filter && unknownOptions(filter, new Set(['--invert', '--color']))).toEqual(['--inverted']);
    expect(stats).toMatchObject({ bin: 'hermes-stats', command: 'sql', options: ['--db'], npx: false });
    expect(() => markdownBlocks('y.md', '<!-- readme-test: output -->\n```sh\nls\n```')).toThrow(/y\.md:2/);

    const runnable = blocks.filter((b): b is ShellBlock => b.kind === 'shell' && b.run);
    const session = await runSession(runnable, REPO_ROOT, { PATH: process.env['PATH'] ?? '' });
    expect(session.outputs[1]).toBe('hello, 42 records in 1.5 s\n');
    expect(session.failure).toMatchObject({ block: { place: 'x.md:19' }, code: 1 });
    expect(missingOutputLines((blocks[3] as { text: string }).text, session.outputs[1] ?? '')).toEqual(['hello, 41 records ...']);
  });
});
