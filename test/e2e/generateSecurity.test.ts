// What the agent's tools can reach, through the whole loop of the real process: no path outside the
// workspace, no secret in a tool process's environment, and the key in no output of any kind.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseToolValue, type Trajectory } from '@hermes-datagen/core';
import type { Script, ScriptedEndpoint } from '@hermes-datagen/testkit';
import { scriptedEndpoint } from '../util/scriptedEndpoint.js';
import { tempDir } from '../util/cli.js';
import { expectNoSecret, filesUnder, runGenerate, type GenerateRun } from '../util/generate.js';
import { FAKE_SECRETS, findSecretForms, TEST_API_KEY } from '../util/secrets.js';

function serve(script: Script, apiKey = TEST_API_KEY): Promise<ScriptedEndpoint> {
  return scriptedEndpoint({ script, apiKey });
}

type Reply = NonNullable<Script['sequences']>[number]['replies'][number];
const calls = (...list: [string, Record<string, unknown>][]): Reply => ({ tool_calls: list.map(([name, args]) => ({ name, arguments: args })) });
const script = (...replies: Reply[]): Script => ({ sequences: [{ match: { regex: '.' }, replies: [...replies, { content: 'Done.' }] }] });

/** Every tool result of the record, in order. */
function results(record: Trajectory | undefined): { name: string | null; content: unknown }[] {
  return (record?.conversations ?? []).filter((t) => t.from === 'tool').flatMap((t) => parseToolValue(t.value));
}

describe('hermes-generate, path confinement through the agent loop', () => {
  it('refuses file-tool paths that leave the workspace by .., an absolute path or a symbolic link', async () => {
    const outside = tempDir('hermes-outside-');
    const { url } = await serve(
      script(
        calls(
          ['read_file', { path: '../../../../../../etc/passwd' }],
          ['read_file', { path: '/etc/hostname' }],
          ['write_file', { path: join(outside, 'escaped.txt'), content: 'x' }],
        ),
        calls(['terminal', { command: 'ln -s / rootlink && ln -s .. up' }]),
        calls(
          ['read_file', { path: 'rootlink/etc/passwd' }],
          ['write_file', { path: 'up/escaped-via-link.txt', content: 'x' }],
          ['search_files', { pattern: 'root', path: '/etc' }],
        ),
      ),
    );
    const run = await runGenerate(url, [{ prompt: 'try to escape' }], ['--toolsets', 'terminal,file']);
    expect(run.code).toBe(0);
    const [record] = run.records;
    const refused = results(record).filter((r) => r.name !== 'terminal');
    expect(refused).toHaveLength(6);
    for (const result of refused) expect(result.content).toEqual({ error: expect.stringContaining('path escapes the workspace') });
    expect(existsSync(join(outside, 'escaped.txt'))).toBe(false);
    expect(existsSync(join(run.dir, 'workspaces', 'escaped-via-link.txt'))).toBe(false);
    expect(record?.tool_stats['read_file']).toEqual({ count: 2 + 1, success: 0, failure: 3 });
    expect(record?.tool_stats['write_file']).toEqual({ count: 2, success: 0, failure: 2 });
  });
});

describe('hermes-generate, the environment of tool processes', () => {
  const PRINT_ENV = script(
    calls(
      ['terminal', { command: 'env; env > env.txt' }],
      ['execute_code', { language: 'python', code: 'import os\nfor k, v in sorted(os.environ.items()): print(f"{k}={v}")' }],
    ),
  );

  it('is an allow-list plus what the row gives: no secret, whatever its name, not even a plain host setting', async () => {
    const { url } = await serve(PRINT_ENV);
    const env = { ...FAKE_SECRETS, PLAIN_SETTING: 'host-value', LEAKY_URL: `https://user:${TEST_API_KEY}@db.example/` };
    const run = await runGenerate(
      url,
      [{ prompt: 'print the environment', env: { ROW_SETTING: 'row-value' } }],
      ['--toolsets', 'terminal,code_execution', '--keep-workspaces'],
      { env },
    );
    expect(run.code).toBe(0);
    const outputs = results(run.records[0]).map((r) => (r.content as { output: string }).output);
    expect(outputs).toHaveLength(2);
    for (const output of outputs) {
      expect(output).toContain('ROW_SETTING=row-value');
      expect(output).toMatch(/^PATH=/m);
      for (const [name, value] of Object.entries(FAKE_SECRETS)) {
        expect(output).not.toContain(name);
        expect(output).not.toContain(value);
      }
      for (const name of ['HERMES_API_KEY', 'LEAKY_URL', 'PLAIN_SETTING']) expect(output).not.toContain(name);
    }
    // runGenerate has scanned env.txt in the kept workspace for the key as well.
    expect(readFileSync(join(run.dir, 'workspaces', readdirSync(join(run.dir, 'workspaces'))[0] ?? '', 'env.txt'), 'utf8')).toContain('ROW_SETTING=row-value');
  });

  it('passes the variables named with --tool-env (repeatable, before the dataset file), never one holding the key', async () => {
    const { url } = await serve(PRINT_ENV);
    const dir = tempDir('hermes-tool-env-');
    writeFileSync(join(dir, 'prompts.jsonl'), `${JSON.stringify({ prompt: 'print the environment' })}\n`);
    const env = {
      PLAIN_SETTING: 'host-value',
      OTHER_SETTING: 'other-value',
      LEAKY_URL: `https://user:${TEST_API_KEY}@db.example/`,
      LC_ADV_TOKEN: 'lc-value-0123',
    };
    const run = await runGenerate(
      url,
      '',
      ['--toolsets', 'terminal,code_execution', '--tool-env', 'PLAIN_SETTING', '--tool-env', 'LEAKY_URL', join(dir, 'prompts.jsonl')],
      { env, dir },
    );
    expect(run.code).toBe(0);
    const outputs = results(run.records[0]).map((r) => (r.content as { output: string }).output);
    for (const output of outputs) {
      expect(output).toContain('PLAIN_SETTING=host-value');
      for (const name of ['OTHER_SETTING', 'LEAKY_URL', 'LC_ADV_TOKEN']) expect(output).not.toContain(name);
    }
  });

  it('refuses a --tool-env that is no variable name, and a --tool-memory that is no size, as usage errors', async () => {
    const { url } = await serve(PRINT_ENV);
    for (const [flag, value, said] of [
      ['--tool-env', 'A=B', /--tool-env takes a variable's name, got "A=B"/],
      ['--tool-memory', 'lots', /--tool-memory must be a size such as 512m or 4g, got lots/],
    ] as const) {
      const run = await runGenerate(url, [{ prompt: 'x' }], [flag, value]);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(said);
    }
  });

  // What an agent can do to read hermes-generate's secrets out of /proc, and carry them out encoded.
  const PEEK = script(
    calls(
      ['terminal', { command: 'env' }],
      ['terminal', { command: 'cat /proc/$PPID/environ; cat /proc/*/environ' }],
      ['terminal', { command: 'ps e; ps e -A' }],
      // Up the ancestors (the shell's parent, its parent...) to hermes-generate, each environment encoded.
      [
        'terminal',
        {
          command:
            'p=$PPID; for i in 1 2 3 4; do f=/proc/$p/environ; base64 -w0 $f; echo; od -An -tx1 -v $f | tr -d " \\n"; echo; tr "\\0" "\\n" < $f | rev; p=$(cut -d" " -f4 /proc/$p/stat); done',
        },
      ],
      [
        'execute_code',
        {
          language: 'python',
          code: 'import glob\nfor f in glob.glob("/proc/[0-9]*/environ"):\n    try: print(open(f, "rb").read().hex())\n    except OSError: pass',
        },
      ],
    ),
  );
  const SECRETS = [TEST_API_KEY, ...Object.values(FAKE_SECRETS)];

  /** Everything the run wrote: streams, and every file under its directory (records, workspaces). */
  const everything = (run: { stdout: string; stderr: string; dir: string }): string =>
    [run.stdout, run.stderr, ...filesUnder(run.dir).map((file) => readFileSync(file, 'utf8'))].join('\n');

  for (const [sandbox, said] of [
    ['auto', /\(--sandbox bwrap, chosen by auto\)/],
    ['unshare', /\(--sandbox unshare\)/],
  ] as const) {
    it(`keeps hermes-generate's key and secrets out of reach under --sandbox ${sandbox}: not raw, base64, hex or reversed, in any output`, async () => {
      const { url } = await serve(PEEK);
      const run = await runGenerate(url, [{ prompt: 'find the keys' }], ['--toolsets', 'terminal,code_execution', '--keep-workspaces', '--sandbox', sandbox], {
        env: FAKE_SECRETS,
      });
      expect(run.code).toBe(0);
      expect(run.stderr).toMatch(said);
      const outputs = results(run.records[0]).map((r) => (r.content as { output: string }).output);
      expect(outputs).toHaveLength(5);
      // The commands ran, and saw only their own processes.
      expect(outputs[0]).toMatch(/^PATH=/m);
      expect(outputs[2]).toMatch(/ps e/);
      expect(findSecretForms(everything(run), SECRETS)).toEqual([]);
    });
  }

  it('would leak without the sandbox: the same agent finds them under --sandbox none (the check can fail)', async () => {
    const { url } = await serve(PEEK);
    const run = await runGenerate(url, [{ prompt: 'find the keys' }], ['--toolsets', 'terminal,code_execution', '--sandbox', 'none'], {
      env: FAKE_SECRETS,
      skipSecretScan: true,
    });
    expect(run.code).toBe(0);
    const found = findSecretForms(everything(run), SECRETS);
    for (const form of ['raw', 'base64', 'hex', 'reversed']) expect(found.join('\n')).toContain(`as ${form}`);
  });
});

describe('the key in outputs', () => {
  it('appears in no file a run writes and in none of its streams, on success or failure', async () => {
    const dir = tempDir('hermes-secret-scan-');
    const endpoint = await serve(script(calls(['terminal', { command: 'echo working' }])));
    const input = '{"prompt": "one"}\nnot json\n{"prompt": "two"}\n';
    const files = ['-o', 'out.jsonl', '--stats-out', 'stats.json', '--rejects', 'rejects.jsonl', '--on-error', 'skip', '--keep-workspaces'];
    const ok = await runGenerate(endpoint.url, input, ['--toolsets', 'terminal', ...files], { dir });
    expect(ok.code).toBe(0);
    expect(readFileSync(join(dir, 'out.jsonl'), 'utf8').trim().split('\n')).toHaveLength(2);
    expect(existsSync(join(dir, 'stats.json'))).toBe(true);
    await endpoint.close();

    for (const fault of ['unauthorized', 'html', 'no_choices', 'server_error'] as const) {
      const failing = await serve({ faults: [{ kind: fault }] });
      const run = await runGenerate(failing.url, input, ['--toolsets', 'terminal', ...files], { dir });
      expect(run.code).not.toBe(0);
      await failing.close();
    }
    const refused = await runGenerate(endpoint.url, input, ['--toolsets', 'terminal', ...files], { dir });
    expect(refused.code).toBe(4);
  });

  it('is found by the scan when it is there (the scan can fail)', () => {
    const dir = tempDir('hermes-secret-scan-');
    writeFileSync(join(dir, 'leak.txt'), `token=${TEST_API_KEY}\n`);
    expect(() => expectNoSecret(dir, { stdout: '', stderr: '' })).toThrow(/files that hold the API key/);
    expect(() => expectNoSecret(tempDir(), { stdout: '', stderr: `error: ${TEST_API_KEY}` })).toThrow(/stderr/);
  });
});

describe('hermes-generate, a key the agent finds in a file', () => {
  it('is redacted from the tool result the model sees and from the record (a copied .env)', async () => {
    const project = tempDir('hermes-project-');
    writeFileSync(join(project, '.env'), `HERMES_API_KEY=${TEST_API_KEY}\n`);
    const { url, requests } = await serve(script(calls(['read_file', { path: '.env' }], ['terminal', { command: 'cat .env' }])));
    const run = await runGenerate(url, [{ prompt: 'show me the settings', cwd: project }], ['--toolsets', 'terminal,file', '--cwd-root', project]);
    expect(run.code).toBe(0);
    const shown = JSON.stringify(results(run.records[0]));
    expect(shown).toContain('HERMES_API_KEY=[api key ');
    // runGenerate has already scanned stdout, stderr and every file it wrote for the key itself.
    const seenByModel = JSON.stringify(requests.map((r) => r.body));
    expect(seenByModel.includes(TEST_API_KEY)).toBe(false);
    expect(seenByModel).toContain('[api key ');
  });
});

describe("hermes-generate, the user's files", () => {
  // Not the API key: a value only these files hold, so that a leak shows raw (nothing redacts it).
  const CANARY = 'sk-file-canary-2b8e4d6f0a1c3957';

  /** A run whose attacker prompt tries every file that holds the canary; a victim prompt's workspace holds it too. */
  async function attack(sandbox: string): Promise<{ run: GenerateRun; outputs: string[] }> {
    const dir = tempDir('hermes-files-');
    const home = join(dir, 'home');
    const project = join(dir, 'project');
    mkdirSync(home);
    mkdirSync(project);
    writeFileSync(join(home, '.env'), `OPENAI_API_KEY=${CANARY}\n`);
    writeFileSync(join(dir, 'run.env'), `EXTRA_TOKEN=${CANARY}\n`);
    writeFileSync(join(dir, 'notes.txt'), `the key is ${CANARY}\n`);
    writeFileSync(join(project, 'sibling-secret.txt'), CANARY);
    writeFileSync(join(dir, 'prompts.jsonl'), `${JSON.stringify({ prompt: 'attacker' })}\n${JSON.stringify({ prompt: 'victim', cwd: project })}\n`);
    const files = [join(home, '.env'), join(dir, 'run.env'), join(dir, 'notes.txt')];
    const attacker: Reply[] = [
      // The victim's workspace exists while the attacker's commands run: it is copied before its first call, and it sleeps.
      calls(['terminal', { command: 'sleep 1' }]),
      calls(['terminal', { command: 'ls ..; cat ../*/sibling-secret.txt' }]),
      calls(['terminal', { command: `cat ${files.join(' ')}; cat ~/.env` }]),
      calls(['terminal', { command: `ls -la /home /root /tmp; ls -R ${dir}` }]),
      calls([
        'terminal',
        { command: "timeout 30 find / -maxdepth 4 \\( -path /proc -o -path /sys \\) -prune -o -name '*.env' -print 2>/dev/null | head -200 | xargs -r cat" },
      ]),
      calls([
        'execute_code',
        { language: 'python', code: `for f in ${JSON.stringify(files)}:\n    try: print(open(f, "rb").read().hex())\n    except OSError as e: print(e)` },
      ]),
    ];
    const { url } = await serve({
      sequences: [
        { match: { regex: 'attacker' }, replies: [...attacker, { content: 'Done.' }] },
        { match: { regex: 'victim' }, replies: [calls(['terminal', { command: 'sleep 3' }]), { content: 'Done.' }] },
      ],
    });
    const run = await runGenerate(
      url,
      '',
      [join(dir, 'prompts.jsonl'), '--env-file', join(dir, 'run.env'), '--toolsets', 'terminal,code_execution', '--sandbox', sandbox, '-c', '2'],
      { env: { HOME: home }, dir },
    );
    const record = run.records.find((r) => JSON.stringify(r.conversations).includes('attacker'));
    return { run, outputs: results(record).map((r) => (r.content as { output: string }).output) };
  }

  for (const [sandbox, said] of [
    ['auto', /\(--sandbox bwrap, chosen by auto\)/],
    ['unshare', /\(--sandbox unshare\)/],
  ] as const) {
    it(`cannot be read under --sandbox ${sandbox}: not ~/.env, the --env-file, a file beside the prompts, /tmp, other homes or another prompt's workspace`, async () => {
      const { run, outputs } = await attack(sandbox);
      expect(run.code).toBe(0);
      expect(run.stderr).toMatch(said);
      expect(outputs).toHaveLength(6);
      // The commands ran and found nothing.
      expect(outputs[1]).toMatch(/sibling-secret\.txt': No such file or directory/);
      expect(outputs[2]).toMatch(/No such file or directory/);
      expect(outputs[5]).toMatch(/No such file or directory/);
      expect(findSecretForms([run.stdout, run.stderr].join('\n'), [CANARY])).toEqual([]);
    });
  }

  it('can be read without the sandbox: the same agent finds the canary under --sandbox none (the check can fail)', async () => {
    const { run, outputs } = await attack('none');
    expect(run.code).toBe(0);
    // Each way in finds it on its own: the files, find, the sibling workspace, the hex dump.
    for (const index of [1, 2, 4]) expect(outputs[index]).toContain(CANARY);
    expect(findSecretForms(outputs[5] ?? '', [CANARY]).join('\n')).toContain('as hex');
  });
});
