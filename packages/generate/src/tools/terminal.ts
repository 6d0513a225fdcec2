// terminal: one shell command in the workspace. The namespace sandbox (sandbox.ts) hides the user's
// other processes and the environment is an allow-list (toolEnv.ts), but the command can still read
// the files the host user can; use the docker sandbox to isolate the filesystem as well.
import { existsSync } from 'node:fs';
import { optionalInteger, requiredString } from './args.js';
import { runCommand } from './runCommand.js';
import type { AgentTool } from './types.js';

// bash where there is one (what models expect from "a terminal"), POSIX sh otherwise. --norc: Debian's
// bash reads ~/.bashrc even with -c when stdin is a socket (as Node's pipes are) and SHLVL is unset,
// and its output would land in the tool result.
const HOST_SHELL = existsSync('/bin/bash') ? { file: '/bin/bash', flags: ['--norc', '--noprofile'] } : { file: '/bin/sh', flags: [] };

export const terminalTool: AgentTool = {
  name: 'terminal',
  toolset: 'terminal',
  description:
    'Execute a shell command in the task workspace (the current directory) and return its combined stdout and stderr ' +
    'with the exit code. Each call starts a fresh shell: cd and variables do not carry over, and background processes ' +
    'are stopped when the command returns, so start a server and its client in the same command. Long output is cut ' +
    'in the middle. No network access is guaranteed.',
  parameters: {
    type: 'object',
    properties: {
      command: { type: 'string', description: 'The command to execute, run with bash -c' },
      timeout: { type: 'integer', minimum: 1, description: 'Seconds before the command is killed; capped at the run limit' },
    },
    required: ['command'],
  },
  async run(args, ctx) {
    const command = requiredString(args, 'command');
    const requestedSeconds = optionalInteger(args, 'timeout', 1);
    const timeoutMs = requestedSeconds === undefined ? ctx.timeoutMs : Math.min(requestedSeconds * 1000, ctx.timeoutMs);
    return runCommand({ host: { file: HOST_SHELL.file, args: [...HOST_SHELL.flags, '-c', command] }, container: ['sh', '-c', command], timeoutMs }, ctx);
  },
};
