// execute_code: a Python or JavaScript program run in the workspace with terminal's limits and
// result shape. The code goes in through stdin (`python3 -`, `node -`): no temporary file appears
// in the workspace, and no argv length limit applies.
import { requiredString } from './args.js';
import { runCommand } from './runCommand.js';
import { ToolError } from './toolError.js';
import type { AgentTool } from './types.js';

type Language = 'python' | 'javascript';

const LANGUAGE_NAMES: ReadonlyMap<string, Language> = new Map([
  ['python', 'python'],
  ['python3', 'python'],
  ['py', 'python'],
  ['javascript', 'javascript'],
  ['js', 'javascript'],
  ['node', 'javascript'],
]);

// On the host, JavaScript runs on the same Node that runs hermes-generate; a container has its own.
const INTERPRETERS: Readonly<Record<Language, { host: string; container: string }>> = {
  python: { host: 'python3', container: 'python3' },
  javascript: { host: process.execPath, container: 'node' },
};

export const executeCodeTool: AgentTool = {
  name: 'execute_code',
  toolset: 'code_execution',
  description:
    'Run a Python (python3) or JavaScript (node) program in the task workspace and return its combined stdout and ' +
    'stderr with the exit code. The program cannot read stdin. Print what you want to see.',
  parameters: {
    type: 'object',
    properties: {
      language: { type: 'string', enum: ['python', 'javascript'], description: 'The language of the code' },
      code: { type: 'string', description: 'The complete program' },
    },
    required: ['language', 'code'],
  },
  async run(args, ctx) {
    const languageName = requiredString(args, 'language');
    const language = LANGUAGE_NAMES.get(languageName.toLowerCase());
    if (language === undefined) throw new ToolError(`language "${languageName}" is not supported; use "python" or "javascript"`);
    const code = requiredString(args, 'code');
    const interpreter = INTERPRETERS[language];
    return runCommand({ host: { file: interpreter.host, args: ['-'] }, container: [interpreter.container, '-'], stdin: code, timeoutMs: ctx.timeoutMs }, ctx);
  },
};
