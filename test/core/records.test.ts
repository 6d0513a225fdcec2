// The shared bad-input policy, driven through a real stream command in-process (test/util/passthrough-cli.mjs).
// Each bad input: the exit code, the message with its place, and under --on-error skip no valid record lost.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { jsonl, parseJsonl, runInProcess, tempDir, writeFiles } from '../util/cli.js';
// @ts-expect-error -- a plain .mjs test aid without type declarations
import { spec } from '../util/passthrough-cli.mjs';

const good = [{ n: 1 }, { n: 2, text: 'héllo ✓' }, { n: 3 }];

async function run(argv: string[], input?: string | Buffer, cwd?: string) {
  return runInProcess(spec, argv, { input, ...(cwd ? { cwd } : {}) });
}

interface BadCase {
  name: string;
  bad: Buffer;
  reason: RegExp;
  argv?: string[];
}

const badCases: BadCase[] = [
  { name: 'invalid JSON', bad: Buffer.from('{"n": 9,'), reason: /invalid JSON/ },
  { name: 'a JSON array', bad: Buffer.from('[1,2]'), reason: /not a JSON object \(got an array\)/ },
  { name: 'a JSON string', bad: Buffer.from('"text"'), reason: /not a JSON object \(got string\)/ },
  { name: 'JSON null', bad: Buffer.from('null'), reason: /not a JSON object \(got null\)/ },
  { name: 'invalid UTF-8', bad: Buffer.from([0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]), reason: /invalid UTF-8/ },
  {
    name: 'a schema violation',
    bad: Buffer.from(JSON.stringify({ prompt: 42 })),
    reason: /does not match the prompt schema: \/prompt must be string/,
    argv: ['--schema', 'prompt'],
  },
];

function withBadSecondLine(bad: Buffer, schema?: string): Buffer {
  const lines = schema === 'prompt' ? good.map((g) => ({ prompt: `p${g.n}` })) : good;
  const [first, ...rest] = lines.map((v) => Buffer.from(`${JSON.stringify(v)}\n`));
  return Buffer.concat([first!, bad, Buffer.from('\n'), ...rest]);
}

describe('bad input lines', () => {
  for (const c of badCases) {
    it(`${c.name}: --on-error fail stops with exit 3 and names the line`, async () => {
      const res = await run([...(c.argv ?? [])], withBadSecondLine(c.bad, c.argv?.[1]));
      expect(res.code).toBe(3);
      expect(res.stderr).toMatch(/^hermes-passthrough: error \(at <stdin>:2\): /);
      expect(res.stderr).toMatch(c.reason);
      expect(res.stderr).not.toMatch(/\n\s+at /); // no stack trace
      expect(parseJsonl(res.stdout)).toHaveLength(1); // the record before it was emitted
    });

    it(`${c.name}: --on-error skip keeps every valid record and writes the reject`, async () => {
      const dir = tempDir();
      const res = await run([...(c.argv ?? []), '--on-error', 'skip', '--rejects', 'rejects.jsonl'], withBadSecondLine(c.bad, c.argv?.[1]), dir);
      expect(res.code).toBe(0);
      expect(parseJsonl(res.stdout)).toHaveLength(3);
      expect(res.stderr).toMatch(/warning \(at <stdin>:2\)/);
      expect(res.stderr).toMatch(/skipped 1 bad input line \(written to rejects.jsonl\)/);
      const rejects = parseJsonl(readFileSync(join(dir, 'rejects.jsonl'), 'utf8')) as { line: number; source: string; reason: string; raw: string }[];
      expect(rejects).toHaveLength(1);
      expect(rejects[0]).toMatchObject({ line: 2, source: '<stdin>' });
      expect(rejects[0]!.reason).toMatch(c.reason);
      expect(rejects[0]!.raw.length).toBeGreaterThan(0);
    });
  }

  it('a UTF-8 BOM at the start is removed with a warning and the record is kept', async () => {
    const res = await run([], Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(jsonl(good))]));
    expect(res.code).toBe(0);
    expect(parseJsonl(res.stdout)).toEqual(good);
    expect(res.stderr).toMatch(/warning \(at <stdin>:1\): UTF-8 byte order mark removed/);
  });

  it('CRLF line ends are accepted and the output uses LF', async () => {
    const res = await run([], jsonl(good).replace(/\n/g, '\r\n'));
    expect(res.code).toBe(0);
    expect(res.stdout).toBe(jsonl(good));
  });

  it('blank and whitespace-only lines are skipped and counted, line numbers stay true', async () => {
    const dir = tempDir();
    const input = `\n${JSON.stringify(good[0])}\n   \n\t\n${JSON.stringify(good[1])}\nnope\n`;
    const res = await run(['--on-error', 'skip', '--stats-out', 'stats.json'], input, dir);
    expect(parseJsonl(res.stdout)).toEqual([good[0], good[1]]);
    expect(res.stderr).toMatch(/\(at <stdin>:6\): invalid JSON/);
    const stats = JSON.parse(readFileSync(join(dir, 'stats.json'), 'utf8')) as { counters: Record<string, number>; exit_code: number };
    expect(stats.counters).toMatchObject({ blank_lines: 3, records_in: 2, rejected_lines: 1 });
    expect(stats.exit_code).toBe(0);
  });

  it('a last line without a newline is a record when it parses', async () => {
    const res = await run([], jsonl(good).trimEnd());
    expect(parseJsonl(res.stdout)).toEqual(good);
  });

  it('a torn last line (no newline, not JSON) says the file may be truncated', async () => {
    const res = await run([], `${jsonl(good)}{"n": 4, "te`);
    expect(res.code).toBe(3);
    expect(res.stderr).toMatch(/\(at <stdin>:4\): invalid JSON in the last line, which has no newline \(the file may be truncated\)/);
    expect(parseJsonl(res.stdout)).toEqual(good);
  });

  it('a line over --max-line-bytes is rejected without being read whole; its neighbours survive', async () => {
    const dir = tempDir();
    const long = `{"big":"${'x'.repeat(5000)}"}`;
    const res = await run(
      ['--max-line-bytes', '1000', '--on-error', 'skip', '--rejects', 'r.jsonl'],
      `${JSON.stringify(good[0])}\n${long}\n${JSON.stringify(good[1])}\n`,
      dir,
    );
    expect(res.code).toBe(0);
    expect(parseJsonl(res.stdout)).toEqual([good[0], good[1]]);
    const [reject] = parseJsonl(readFileSync(join(dir, 'r.jsonl'), 'utf8')) as { line: number; truncated: boolean; reason: string }[];
    expect(reject).toMatchObject({ line: 2, truncated: true });
    expect(reject!.reason).toMatch(/longer than the limit of 1000 bytes/);
  });
});

describe('inputs', () => {
  it('reads gzip input, detected by its magic bytes (not its name)', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'data.jsonl': gzipSync(jsonl(good)) });
    const res = await run(['data.jsonl'], undefined, dir);
    expect(res.code).toBe(0);
    expect(parseJsonl(res.stdout)).toEqual(good);
  });

  it('gzip on stdin works too', async () => {
    const res = await run([], gzipSync(jsonl(good)));
    expect(parseJsonl(res.stdout)).toEqual(good);
  });

  it('corrupt gzip data is an input error', async () => {
    const bytes = gzipSync(jsonl(good));
    const res = await run([], bytes.subarray(0, bytes.length - 12));
    expect(res.code).toBe(3);
    expect(res.stderr).toMatch(/\(at <stdin>:\d+\): not valid gzip data \(unexpected end of file\)/);
  });

  it('names the second file and its own line number', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'a.jsonl': jsonl(good), 'b.jsonl': `${JSON.stringify(good[0])}\nbroken\n` });
    const res = await run(['a.jsonl', 'b.jsonl'], undefined, dir);
    expect(res.code).toBe(3);
    expect(res.stderr).toMatch(/error \(at b\.jsonl:2\): invalid JSON/);
    expect(parseJsonl(res.stdout)).toHaveLength(4);
  });

  it('a missing file is an input error that names it', async () => {
    const res = await run(['nope.jsonl'], undefined, tempDir());
    expect(res.code).toBe(3);
    expect(res.stderr).toMatch(/error: cannot read nope\.jsonl: no such file/);
  });

  it('stdin may be named once only: a usage error', async () => {
    const res = await run(['-', '-'], jsonl(good));
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/stdin \(-\) can be read only once/);
  });

  it('- between files reads stdin there', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'a.jsonl': jsonl([{ from: 'a' }]) });
    const res = await run(['a.jsonl', '-'], jsonl([{ from: 'stdin' }]), dir);
    expect(parseJsonl(res.stdout)).toEqual([{ from: 'a' }, { from: 'stdin' }]);
  });
});

describe('outputs', () => {
  it('-o FILE is written whole on success and holds compact JSON lines', async () => {
    const dir = tempDir();
    const res = await run(['-o', 'out.jsonl', '--rewrite'], jsonl(good).replace(/,/g, ' , '), dir);
    expect(res.code).toBe(0);
    expect(res.stdout).toBe('');
    expect(readFileSync(join(dir, 'out.jsonl'), 'utf8')).toBe(jsonl(good));
  });

  it('-o FILE is left untouched when the run fails on bad input', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'out.jsonl': 'previous\n' });
    const res = await run(['-o', 'out.jsonl'], `${jsonl(good)}oops\n`, dir);
    expect(res.code).toBe(3);
    expect(readFileSync(join(dir, 'out.jsonl'), 'utf8')).toBe('previous\n');
  });

  it('-o FILE.gz is gzipped', async () => {
    const dir = tempDir();
    await run(['-o', 'out.jsonl.gz'], jsonl(good), dir);
    const bytes = readFileSync(join(dir, 'out.jsonl.gz'));
    expect([bytes[0], bytes[1]]).toEqual([0x1f, 0x8b]);
    const back = await run(['out.jsonl.gz'], undefined, dir);
    expect(parseJsonl(back.stdout)).toEqual(good);
  });

  it('-o into a missing directory is a usage error', async () => {
    const res = await run(['-o', 'no/such/dir/out.jsonl'], jsonl(good), tempDir());
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/--output no\/such\/dir\/out\.jsonl: no such directory/);
  });
});
