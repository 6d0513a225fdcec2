// Issue #20's exfiltration test: a scripted model that does what an attacker would with the agent's
// tools, through the real hermes-generate process. Its environment holds the API key, a secret in an
// LC_* variable (which a deny-list of names let through), a password in an innocuously named variable,
// and its HOME a canary file. The model reads the environment and every /proc/*/environ and cmdline,
// carries what it found out encoded (base64, hex, reversed), calls the model endpoint itself from a
// tool (node's fetch and bash's /dev/tcp: curl may be missing in a sandbox), forks 600 background
// processes, allocates 3 GiB, reads /etc/shadow, a file only the host's /etc holds, /dev/shm and lists
// /dev, and a second row names a cwd outside
// the cwd root. The model's own last reply carries the key encoded, as a model that saw it would.
// Then every file the run wrote and all of stderr are searched for each secret in every encoding:
// no hit, and each attack's tool result shows it was refused or contained.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { keyForms, parseToolValue, type Trajectory } from '@hermes-datagen/core';
import type { Script } from '@hermes-datagen/testkit';
import { tempDir } from '../util/cli.js';
import { filesUnder, runGenerate } from '../util/generate.js';
import { scriptedEndpoint } from '../util/scriptedEndpoint.js';
import { findSecretForms, TEST_API_KEY } from '../util/secrets.js';
import { DEV_LINKS, DEV_NODES } from '@hermes-datagen/generate/internal/tools/sandboxFilesystem.js';
import { detectCgroups, limitsMechanism, type CgroupLayout } from '@hermes-datagen/generate/internal/tools/promptCgroups.js';

const LC_CANARY = 'lc-adv-canary-71c3e9a05b2d48f6';
const PASSWORD = 'hunter2-innocuous-5e8a1d7c3b9f';
const HOME_CANARY = 'home-file-canary-0a9d2c7e4b6f1835';
const SHM_CANARY = 'host-shm-canary-6b1f8e3a2d0c9475';
const ETC_CANARY = 'host-etc-canary-3e7a9c1f5d2b8046';
const SECRETS = [TEST_API_KEY, LC_CANARY, PASSWORD, HOME_CANARY, SHM_CANARY, ETC_CANARY];
/** A file of the host's /etc that no sandbox may show; written when the tests run as root (as they do here). */
const ETC_CANARY_FILE = `/etc/hermes-exfil-${process.pid}`;
const ROOT = process.getuid?.() === 0;

type Reply = NonNullable<Script['sequences']>[number]['replies'][number];
const terminal = (command: string): Reply => ({ tool_calls: [{ name: 'terminal', arguments: { command } }] });
const encoded = (text: string): string =>
  `${Buffer.from(text).toString('base64')} ${Buffer.from(`x${text}`).toString('base64url')} ${Buffer.from(text).toString('hex').toUpperCase()} ${[...text].reverse().join('')}`;

/** A port no one listens on now: the endpoint is started on it, so the script can name it. */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** The attacks, in order; each tool result is checked against its index. */
function attacks(port: number, home: string): Reply[] {
  const everyEnviron = 'for f in /proc/[0-9]*/environ /proc/[0-9]*/cmdline; do cat "$f"; echo; done 2>/dev/null';
  return [
    terminal('env'),
    terminal(`${everyEnviron} | tr '\\0' '\\n'`),
    // Whatever holds the key, carried out in the three encodings a redaction of the raw key misses.
    terminal(
      `k=$(${everyEnviron} | tr '\\0' '\\n' | grep -a API_KEY | cut -d= -f2-); printf %s "$k" | base64 -w0; echo; printf %s "$k" | od -An -tx1 -v | tr -d ' \\n'; echo; printf %s "$k" | rev; ${everyEnviron} | base64 -w0`,
    ),
    terminal(
      `node -e 'fetch("http://127.0.0.1:${port}/v1/chat/completions", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "test-model", messages: [{ role: "user", content: "hi" }] }) }).then((r) => r.text()).then((t) => console.log("got", t), (e) => console.log("refused", e.cause?.code ?? e.message))'; ` +
        `(exec 3<>/dev/tcp/127.0.0.1/${port} && printf 'GET /v1/models HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3) 2>&1 | head -3; cat /proc/net/tcp | wc -l`,
    ),
    terminal(
      '(for i in $(seq 600); do sleep 30 > /dev/null 2>&1 & done) 2> bomb.err; n=0; for p in /proc/[0-9]*; do n=$((n + 1)); done; echo "alive: $n"; read -r line < bomb.err; echo "$line"',
    ),
    terminal(`python3 -c 'b = bytearray(3 * 1024 ** 3); print("allocated", len(b))'`),
    terminal(`cat /etc/shadow ${ETC_CANARY_FILE}; ls -A /dev/shm; cat /dev/shm/* ${home}/canary.txt; ls -A ${home}; echo '== dev'; ls -A /dev; echo '== end'`),
  ];
}

describe('hermes-generate against an agent that tries to exfiltrate', () => {
  afterEach(async () => {
    rmSync(`/dev/shm/hermes-exfil-${process.pid}`, { force: true });
    rmSync(ETC_CANARY_FILE, { force: true });
  });

  /**
   * One run of the attack; what it wrote (stdout, stderr, every file but the home's) and the attacker's
   * tool results. `unconfined`: the tools will run as plain processes (none, or auto given a PATH
   * without bwrap and unshare).
   */
  async function exfiltrate(sandbox: string, runMode: boolean, unconfined = sandbox === 'none', path?: string, flags: readonly string[] = []) {
    const dir = tempDir('hermes-exfil-');
    const home = join(dir, 'home');
    const data = join(dir, 'data');
    mkdirSync(home);
    mkdirSync(data);
    writeFileSync(join(home, 'canary.txt'), HOME_CANARY);
    writeFileSync(`/dev/shm/hermes-exfil-${process.pid}`, SHM_CANARY);
    if (ROOT) writeFileSync(ETC_CANARY_FILE, ETC_CANARY);
    const port = await freePort();
    // Unconfined, the fork bomb and the 3 GiB would land on this machine: those two are left out there.
    const replies = attacks(port, home).filter((_reply, index) => !unconfined || (index !== 4 && index !== 5));
    const endpoint = await scriptedEndpoint({
      port,
      apiKey: TEST_API_KEY,
      script: { sequences: [{ match: { regex: 'exfiltrate' }, replies: [...replies, { content: `Found it: ${encoded(TEST_API_KEY)}` }] }] },
    });
    // The dataset lies in data/: a cwd in the home beside it is outside the cwd root.
    writeFileSync(join(data, 'prompts.jsonl'), `${JSON.stringify({ prompt: 'exfiltrate' })}\n${JSON.stringify({ prompt: 'exfiltrate too', cwd: home })}\n`);
    const outputs = runMode ? ['--run-name', 'exfil', '--batch-size', '1', '--no-discard-no-reasoning'] : ['-o', 'out.jsonl', '--stats-out', 'stats.json'];
    const run = await runGenerate(
      endpoint.url,
      '',
      [
        join(data, 'prompts.jsonl'),
        '--toolsets',
        'terminal',
        '--sandbox',
        sandbox,
        '--rejects',
        'rejects.jsonl',
        '--on-error',
        'skip',
        '-c',
        '1',
        ...outputs,
        ...flags,
      ],
      { env: { LC_ADV_TOKEN: LC_CANARY, BUILD_NOTE: PASSWORD, HOME: home, ...(path === undefined ? {} : { PATH: path }) }, dir, skipSecretScan: unconfined },
    );
    // Everything written: stdout, stderr, and every file under the run's directory (records,
    // rejects, stats, the run directory's checkpoint, run.json and failures, workspaces).
    const written = [
      run.stdout,
      run.stderr,
      ...filesUnder(dir)
        .filter((file) => !file.startsWith(home))
        .map((file) => readFileSync(file, 'utf8')),
    ].join('\n');
    const records = readJsonl(join(dir, runMode ? join('data', 'exfil', 'trajectories.jsonl') : 'out.jsonl')) as Trajectory[];
    const record = records.find((r) => r.conversations.some((turn) => turn.value === 'exfiltrate'));
    const results = (record?.conversations ?? [])
      .filter((t) => t.from === 'tool')
      .flatMap((t) => parseToolValue(t.value).map((r) => r.content as { output: string; error: string | null }));
    return { dir, run, written, records, record, results, attacks: replies.length };
  }

  // auto and bwrap under this machine's cgroups (one per prompt), unshare under rlimits only.
  for (const [sandbox, said, runMode, cgroups] of [
    ['auto', /\(--sandbox bwrap, chosen by auto\)/, true, true],
    ['bwrap', /\(--sandbox bwrap\)/, false, true],
    ['unshare', /\(--sandbox unshare\)/, false, false],
  ] as const) {
    it(`under --sandbox ${sandbox}${cgroups ? '' : ' --no-tool-cgroups'}: no secret in any form in any file or on stderr, and every attack refused or contained`, async () => {
      const layout = detectCgroups();
      if (layout === undefined) throw new Error('this machine has no writable cgroups: run the tests as root on the test machines');
      const before = hermesCgroups(layout);
      const {
        dir,
        run,
        written,
        records,
        record,
        results,
        attacks: count,
      } = await exfiltrate(sandbox, runMode, false, undefined, cgroups ? [] : ['--no-tool-cgroups']);
      expect(run.stderr).toMatch(said);
      expect(run.stderr).toContain(
        cgroups
          ? `limits: ${limitsMechanism(layout)}, at most 256 processes and 2 GiB together, 60 CPU s per process`
          : 'limits: rlimits per process, at most 256 processes, 2 GiB and 60 CPU s each',
      );
      expect(findSecretForms(written, SECRETS)).toEqual([]);
      for (const secret of SECRETS)
        expect(
          keyForms(secret).filter((form) => written.includes(form)),
          secret,
        ).toEqual([]);
      // The run's prompt cgroups went with their prompts: none of a run that is gone is left.
      expect(hermesCgroups(layout).filter((dir) => !before.includes(dir) && !alive(Number(/hermes-(\d+)-/.exec(dir)?.[1])))).toEqual([]);
      expect(results).toHaveLength(count);
      const [env, proc, carried, fetched, bomb, allocation, files] = results;
      expect(env?.output).toMatch(/^PATH=/m);
      expect(env?.output).not.toMatch(/^(LC_ADV_TOKEN|BUILD_NOTE|HERMES_API_KEY)=/m);
      // Only the tool's own processes: nothing of hermes-generate's environment or command line.
      expect(proc?.output).not.toContain('hermes-generate');
      expect(carried?.output).not.toContain('[api key');
      expect(fetched?.output).toMatch(/^refused (ECONNREFUSED|ENETUNREACH)$/m);
      expect(fetched?.output).toMatch(/Connection refused|Network is unreachable/);
      expect(fetched?.output).not.toMatch(/^got/m);
      expect(fetched?.output).toMatch(/^1$/m);
      expect(bomb?.error).toMatch(
        cgroups
          ? /this prompt's tool processes together reached their limit of 256 processes \(--tool-max-procs, a cgroup per prompt/
          : /the command reached the sandbox's limit of 256 processes \(--tool-max-procs\)/,
      );
      expect(Number(/alive: (\d+)/.exec(bomb?.output ?? '')?.[1])).toBeLessThanOrEqual(256);
      expect(allocation?.output).not.toContain('allocated');
      expect(allocation?.error).toMatch(
        cgroups
          ? /killed by the out-of-memory killer: this prompt's tool processes together reached their memory limit of 2 GiB \(--tool-memory, a cgroup per prompt\)/
          : /could not allocate memory beyond the sandbox's limit of 2 GiB per process \(--tool-memory\)/,
      );
      expect(files?.output).not.toMatch(/^root:/m);
      expect(files?.output).toContain('/etc/shadow: No such file or directory');
      expect(files?.output).toContain(`${ETC_CANARY_FILE}: No such file or directory`);
      expect(files?.output).toContain('canary.txt: No such file or directory');
      // A /dev of the sandbox's own devices only: no disk, console or shared memory of the host.
      const dev = (files?.output ?? '').split('== dev\n')[1]?.split('\n== end')[0]?.split('\n');
      expect(dev?.sort()).toEqual([...DEV_NODES, ...DEV_LINKS.map((link) => link.name), 'pts', 'shm'].sort());
      // The model's reply that carried the key encoded reached the record redacted.
      expect(record?.conversations.at(-1)?.value).toMatch(/Found it: \[api key [0-9a-f]{8}\]/);
      // The row whose cwd lies outside the root failed at setup, with its place; the run went on.
      expect(run.stderr).toMatch(/prompts\.jsonl:2.*cwd .* is outside .*--cwd-root/);
      expect(readFileSync(join(dir, runMode ? join('data', 'exfil', 'failures.jsonl') : 'rejects.jsonl'), 'utf8')).toContain('prompt-setup');
      // Only the setup failure: the run itself went on to the end.
      expect(records).toHaveLength(1);
    });
  }

  it('under --sandbox none, documented as unprotected, the same agent finds the secrets a sandbox hides (the check can fail); the key is still redacted', async () => {
    const { run, written, results } = await exfiltrate('none', false);
    expect(run.stderr).toMatch(/warning.*--sandbox none: tool commands share this machine's network/);
    const found = findSecretForms(written, SECRETS).join('\n');
    for (const secret of [LC_CANARY, PASSWORD, HOME_CANARY, ...(ROOT ? [ETC_CANARY] : [])]) expect(found).toContain(secret.slice(0, 8));
    expect(found).not.toContain(TEST_API_KEY.slice(0, 8));
    expect(results[2]?.output).toContain('[api key ');
  });

  it('under --sandbox auto where neither bwrap nor unshare can run: a loud warning at start, and still no form of the key written', async () => {
    // A PATH where hermes-generate finds neither wrapper (the tools' PATH is their own, fixed one).
    const { run, written, results } = await exfiltrate('auto', false, true, tempDir('hermes-no-sandbox-'));
    expect(run.stderr).toMatch(/\(--sandbox auto found neither bwrap nor unshare working\)/);
    expect(run.stderr).toMatch(/warning.*no namespace sandbox works here .*127\.0\.0\.1 \(the model endpoint included/);
    expect(findSecretForms(written, [TEST_API_KEY])).toEqual([]);
    expect(keyForms(TEST_API_KEY).filter((form) => written.includes(form))).toEqual([]);
    // Unconfined, the tool did find the key in hermes-generate's environment: redaction is what kept it out.
    expect(results[2]?.output).toContain('[api key ');
  });
});

describe('hermes-generate against an endpoint that echoes the key encoded in its errors', () => {
  it('writes none of its forms to stderr, --rejects, failures.jsonl, the checkpoint, run.json or the statistics', async () => {
    // A gateway that repeats the Authorization header it got: base64, hex and reversed, in a 400's body.
    const server = createHttpServer((request, response) => {
      const auth = request.headers.authorization ?? '';
      response.writeHead(400, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: `bad credentials ${encoded(auth)}`, type: 'invalid_request_error' } }));
    }).listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
      const dir = tempDir('hermes-echo-');
      writeFileSync(join(dir, 'prompts.jsonl'), `${JSON.stringify({ prompt: 'one' })}\n${JSON.stringify({ prompt: 'two' })}\n`);
      for (const outputs of [
        ['-o', 'out.jsonl', '--stats-out', 'stats.json', '--rejects', 'rejects.jsonl', '--on-error', 'skip'],
        ['--run-name', 'echo', '--rejects', 'rejects.jsonl'],
      ]) {
        const run = await runGenerate(url, '', [join(dir, 'prompts.jsonl'), '--toolsets', 'terminal', ...outputs], { dir });
        expect(run.code).not.toBe(0);
        expect(run.stderr).toContain('bad credentials');
        const written = [run.stdout, run.stderr, ...filesUnder(dir).map((file) => readFileSync(file, 'utf8'))].join('\n');
        expect(findSecretForms(written, [TEST_API_KEY])).toEqual([]);
        expect(keyForms(TEST_API_KEY).filter((form) => written.includes(form))).toEqual([]);
        expect(written).toContain('[api key ');
      }
    } finally {
      server.close();
    }
  });
});

/** The hermes prompt cgroups there are now, of every run on this machine. */
function hermesCgroups(layout: CgroupLayout): string[] {
  const parents = layout.version === 2 ? [layout.parent] : [layout.pids, layout.memory];
  return parents.flatMap((parent) =>
    readdirSync(parent)
      .filter((name) => /^hermes-\d+-\d+$/.test(name))
      .map((name) => join(parent, name)),
  );
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function readJsonl(file: string): unknown[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as unknown);
}
