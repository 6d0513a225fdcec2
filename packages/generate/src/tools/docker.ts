// The docker sandbox: terminal commands and code run in a throwaway container that sees only the
// workspace (mounted at /workspace) and has no network. The container gets none of the host's
// environment. Nothing here pretends to succeed: a missing docker CLI or daemon is an error result.
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { CONTAINER_WORKSPACE } from './confine.js';
import { ToolError } from './toolError.js';
import type { DockerSandbox } from './types.js';

/** `docker run` exits with 125 when docker itself failed (no daemon, no image), not the command. */
export const DOCKER_RUN_FAILED = 125;

// Why validate: the image comes from a dataset row and lands in docker's argv, where a value
// starting with "-" would be read as an option (--privileged) rather than an image.
const IMAGE_REFERENCE = /^[A-Za-z0-9][A-Za-z0-9._/:@-]*$/;

export interface DockerInvocation {
  file: string;
  args: string[];
  containerName: string;
}

export function dockerInvocation(sandbox: DockerSandbox, workspace: string, command: readonly string[]): DockerInvocation {
  if (!IMAGE_REFERENCE.test(sandbox.image)) {
    throw new ToolError(`docker sandbox image "${sandbox.image}" is not a valid image reference; fix the row's docker_image`);
  }
  const containerName = `hermes-tool-${randomBytes(6).toString('hex')}`;
  const user = typeof process.getuid === 'function' && process.getuid() !== 0 ? ['--user', `${process.getuid()}:${process.getgid?.() ?? 0}`] : [];
  return {
    file: 'docker',
    args: [
      'run',
      '--rm',
      '-i',
      '--name',
      containerName,
      '--network',
      'none',
      // Why --user: files the command creates in the workspace stay removable by this process.
      ...user,
      '-v',
      `${workspace}:${CONTAINER_WORKSPACE}`,
      '-w',
      CONTAINER_WORKSPACE,
      sandbox.image,
      ...command,
    ],
    containerName,
  };
}

/** Killing the docker CLI does not stop its container, so a timeout or abort kills it by name. */
export function killContainer(containerName: string, env: Readonly<Record<string, string>>): Promise<void> {
  return new Promise((resolve) => {
    const killer = spawn('docker', ['kill', containerName], { env, stdio: 'ignore' });
    killer.on('error', () => resolve());
    killer.on('close', () => resolve());
  });
}

export function dockerMissingMessage(): string {
  return 'the docker sandbox was requested but the docker CLI was not found on PATH; install Docker or run without the docker sandbox';
}

export function dockerFailedMessage(sandbox: DockerSandbox, output: string): string {
  const reason = firstLine(output) ?? 'no message';
  return (
    `docker could not run the command in image "${sandbox.image}" (docker exit ${DOCKER_RUN_FAILED}); ` +
    `check that the Docker daemon is running and the image exists, or run without the docker sandbox. Docker said: ${reason}`
  );
}

/**
 * Checked once before a --sandbox docker run starts: a missing CLI or an unreachable daemon is a
 * configuration error of the whole run (exit 2), not a failure of every command in it.
 */
export function dockerUnavailable(env: Readonly<Record<string, string | undefined>>): Promise<string | null> {
  return new Promise((resolve) => {
    let output = '';
    const probe = spawn('docker', ['version', '--format', '{{.Server.Version}}'], {
      env: env as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 15_000,
    });
    probe.stdout.on('data', (c: Buffer) => (output += c.toString()));
    probe.stderr.on('data', (c: Buffer) => (output += c.toString()));
    probe.on('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ENOENT' ? dockerMissingMessage() : `docker could not be started: ${err.message}`));
    probe.on('close', (code) => {
      if (code === 0) return resolve(null);
      const reason = firstLine(output) ?? `docker version exited ${String(code)}`;
      resolve(`--sandbox docker needs a running Docker daemon, and none answered; start Docker or run without --sandbox docker. Docker said: ${reason}`);
    });
  });
}

/** What docker said first: the line that names the problem. */
function firstLine(output: string): string | undefined {
  return output
    .trim()
    .split('\n')
    .find((line) => line.trim() !== '');
}
