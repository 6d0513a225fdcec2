import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dockerInvocation, dockerMissingMessage, dockerUnavailable } from '@hermes-datagen/generate/internal/tools/docker.js';
import { executeCodeTool } from '@hermes-datagen/generate/internal/tools/executeCode.js';
import { terminalTool } from '@hermes-datagen/generate/internal/tools/terminal.js';
import type { CommandResult, ToolContext } from '@hermes-datagen/generate/internal/tools/types.js';
import { testWorkspace, type TestWorkspace } from './context.js';

const sandbox = { kind: 'docker', image: 'python:3.12-slim' } as const;

describe('docker sandbox', () => {
  let ws: TestWorkspace;
  let emptyDir: string;
  beforeEach(async () => {
    ws = await testWorkspace({ sandbox });
    emptyDir = await mkdtemp(join(tmpdir(), 'hermes-no-docker-'));
  });
  afterEach(async () => {
    await ws.cleanup();
    await rm(emptyDir, { recursive: true, force: true });
  });

  it('runs the command in a networkless container that sees only the workspace', () => {
    const invocation = dockerInvocation(sandbox, '/tmp/ws-1', ['sh', '-c', 'ls -la']);
    expect(invocation.file).toBe('docker');
    expect(invocation.args.slice(0, 4)).toEqual(['run', '--rm', '-i', '--name']);
    expect(invocation.args[4]).toBe(invocation.containerName);
    expect(invocation.containerName).toMatch(/^hermes-tool-[0-9a-f]{12}$/);
    const joined = invocation.args.join(' ');
    expect(joined).toContain('--network none');
    expect(joined).toContain('-v /tmp/ws-1:/workspace -w /workspace');
    expect(joined.endsWith('python:3.12-slim sh -c ls -la')).toBe(true);
    expect(joined).not.toMatch(/(^| )(-e|--env|--privileged)( |$)/);
  });

  it('refuses an image reference that docker would read as an option', () => {
    expect(() => dockerInvocation({ kind: 'docker', image: '--privileged' }, '/tmp/ws', ['true'])).toThrow(/not a valid image reference/);
  });

  it('fails clearly when the docker CLI is missing', async () => {
    const ctx: ToolContext = { ...ws.ctx, env: { PATH: emptyDir } };
    const expected = {
      output: '',
      exit_code: null,
      error: 'the docker sandbox was requested but the docker CLI was not found on PATH; install Docker or run without the docker sandbox',
    };
    expect(await terminalTool.run({ command: 'echo hi' }, ctx)).toEqual(expected);
    expect(await executeCodeTool.run({ language: 'python', code: 'print(1)' }, ctx)).toEqual(expected);
  });

  it('fails clearly when the docker daemon cannot be reached', async () => {
    const path = ws.ctx.env.PATH ?? '';
    // The CI image may lack the docker CLI; then the missing-CLI error is the clear failure to expect.
    const hasCli = path.split(delimiter).some((dir) => existsSync(join(dir, 'docker')));
    const ctx: ToolContext = { ...ws.ctx, env: { ...ws.ctx.env, DOCKER_HOST: `unix://${emptyDir}/docker.sock` } };
    const result = (await terminalTool.run({ command: 'echo hi' }, ctx)) as CommandResult;
    if (hasCli) {
      expect(result.exit_code).toBe(125);
      expect(result.error).toMatch(
        /^docker could not run the command in image "python:3\.12-slim" \(docker exit 125\); check that the Docker daemon is running and the image exists, or run without the docker sandbox\. Docker said: .*Cannot connect to the Docker daemon/,
      );
    } else {
      expect(result.error).toMatch(/docker CLI was not found on PATH/);
    }
    expect(result.output).not.toBe('hi');
  });
});

describe('the docker sandbox check before a run', () => {
  it('says the docker CLI is missing when it is not on PATH', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'hermes-no-docker-'));
    try {
      expect(await dockerUnavailable({ PATH: empty })).toBe(dockerMissingMessage());
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });

  it('says the daemon did not answer, quoting docker, when docker version fails', async () => {
    const bin = await mkdtemp(join(tmpdir(), 'hermes-fake-docker-'));
    try {
      await writeFile(join(bin, 'docker'), '#!/bin/sh\necho "Cannot connect to the Docker daemon at unix:///var/run/docker.sock" >&2\nexit 1\n', {
        mode: 0o755,
      });
      expect(await dockerUnavailable({ PATH: `${bin}:/usr/bin:/bin` })).toMatch(
        /^--sandbox docker needs a running Docker daemon, and none answered; start Docker or run without --sandbox docker\. Docker said: Cannot connect to the Docker daemon/,
      );
      await writeFile(join(bin, 'docker'), '#!/bin/sh\necho 28.2.2\n', { mode: 0o755 });
      expect(await dockerUnavailable({ PATH: `${bin}:/usr/bin:/bin` })).toBeNull();
    } finally {
      await rm(bin, { recursive: true, force: true });
    }
  });
});
