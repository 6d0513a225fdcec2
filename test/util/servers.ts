// Servers the tests start as real processes (hermes-testkit serve, the Portkey AI Gateway): each is
// ready when it says so on stdout, and stopped (SIGTERM, then waited for) after the current test.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { binPath, REPO_ROOT } from './cli.js';

export interface ServerProcess {
  /** What the ready line gave: hermes-testkit's base URL. */
  readonly ready: string;
  readonly child: ChildProcess;
  /** All stdout and stderr so far. */
  output(): string;
}

const running: ChildProcess[] = [];

afterEach(async () => {
  await Promise.all(
    running.splice(0).map(async (child) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    }),
  );
});

/** Starts `node script ...args` and resolves with the first stdout match of `ready` (its group 1, else the whole match). */
export async function startServer(script: string, args: readonly string[], ready: RegExp, env: NodeJS.ProcessEnv = {}): Promise<ServerProcess> {
  const child = spawn(process.execPath, [script, ...args], {
    cwd: REPO_ROOT,
    env: { PATH: process.env['PATH'] ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(child);
  let text = '';
  const output = (): string => text;
  const found = await new Promise<string>((resolve, reject) => {
    const look = (chunk: Buffer): void => {
      text += chunk.toString('utf8');
      const match = ready.exec(text);
      if (match) resolve(match[1] ?? match[0]);
    };
    child.stdout.on('data', look);
    child.stderr.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
    });
    child.once('exit', (code) => reject(new Error(`${script} exited (${code}) before it was ready:\n${text}`)));
    child.once('error', reject);
  });
  return { ready: found, child, output };
}

/** `hermes-testkit serve ...args` as a real process; resolves with its base URL. */
export async function startTestkit(args: readonly string[] = [], env: NodeJS.ProcessEnv = {}): Promise<string> {
  return (await startServer(binPath('testkit', 'hermes-testkit'), ['serve', ...args], /^(http:\/\/\S+)\n/m, env)).ready;
}

/** A loopback port free a moment ago (for a server that takes no port 0). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The gateway of @portkey-ai/gateway (a devDependency, its version pinned) on a free port; resolves with its base URL. */
export async function startPortkey(): Promise<string> {
  const port = await freePort();
  await startServer(join(REPO_ROOT, 'node_modules/@portkey-ai/gateway/build/start-server.js'), [`--port=${port}`, '--headless'], /Ready for connections/);
  return `http://127.0.0.1:${port}/v1`;
}
