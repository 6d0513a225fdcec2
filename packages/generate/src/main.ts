// hermes-generate: prompts JSONL in, Hermes trajectories JSONL out. Each prompt runs through the agent
// loop against one OpenAI-compatible endpoint, with real tools in a workspace of its own; each
// trajectory is written as soon as its prompt is done.
import { defineCommand, main as runMain, pricesOption, type CliSpec } from '@hermes-datagen/core';
import { ENDPOINT_ENV_HELP, endpointOptions } from '@hermes-datagen/core/endpoint';
import { DEFAULT_MAX_TURNS, DEFAULT_REQUEST_TIMEOUT_S } from './agentLoop.js';
import { batchApiOptions } from './batchApi/batchApiOptions.js';
import { doctorCommand } from './doctor/doctorCommand.js';
import { failureKindsHelp } from './failureKinds.js';
import { DEFAULT_CONCURRENCY, runGenerate } from './generateCommand.js';
import { GENERATION, requestOptions, TOOLS } from './requestOptions.js';
import { listDistributionsCommand } from './run/listDistributions.js';
import { runOptions } from './run/runMode.js';
import { detectCgroups, limitsMechanism } from './tools/promptCgroups.js';
import { SANDBOX_HELP, SANDBOX_MODES } from './tools/sandbox.js';
import { DEFAULT_TOOL_LIMITS, formatSize } from './tools/toolLimits.js';
import { defaultToolConcurrency } from './tools/toolProcesses.js';

export const spec: CliSpec = {
  name: 'hermes-generate',
  summary: 'Run each prompt through an agent loop with real tools and write its Hermes trajectory (JSONL in, JSONL out).',
  env: ENDPOINT_ENV_HELP,
  exitCodes: [0, 1, 2, 3, 4, 5, 70, 74, 130],
  epilog: [
    'Input: one JSON object a line with "prompt" (required), and optionally "id", "cwd" (a directory copied into',
    'the prompt\'s workspace), "docker_image" / "image" (used with --sandbox docker), "env" (an object of',
    "variables for the row's tool processes, which otherwise get only PATH, HOME, TMPDIR, LANG, LC_ALL, LC_CTYPE, TERM, TZ and --tool-env names).",
    'Output: one trajectory a line (schemas/trajectory.schema.json), in the order prompts finish; "id" and',
    '"prompt_index" say which prompt. Ids key every record downstream, so (in stream mode) a row whose id an earlier row',
    'has is a bad input line naming both lines (exit 3 under --on-error fail; skipped into --rejects under skip).',
    '',
    "A prompt whose model calls still fail after the client's retries gets no trajectory: it is reported on",
    'stderr with its line, and the run goes on. Its failure is named as doctor names it, and the names decide',
    'the exit code (70 if one was a bug); finished trajectories are kept whatever the exit code.',
    '',
    failureKindsHelp(),
    '',
    'With --run-name the run also goes to <output-root>/<run-name>/: batch_N.jsonl (each record fsynced before it',
    'counts), checkpoint.json, failures.jsonl, run.json (dataset, endpoint, key fingerprint, flags, invocations),',
    'and, at the end of every invocation, trajectories.jsonl and statistics.json over the whole run. --resume runs',
    'each (row, sample) that has no record or tombstone yet, by record id, never by prompt text; it refuses (exit 2)',
    'a different dataset, model, endpoint or key unless --force-resume. On SIGINT/SIGTERM no new prompt starts, running',
    'ones get --grace seconds, and the run ends resumably (130/143); a second signal exits at once, still resumable.',
  ].join('\n'),
  commands: [
    defineCommand({
      command: '$0 [files..]',
      describe: 'run every prompt and write its trajectory when it finishes',
      stream: true,
      options: (y) =>
        batchApiOptions(runOptions(pricesOption(requestOptions(endpointOptions(y)), 'Cost (docs/cost.md):')))
          .option('concurrency', {
            alias: 'c',
            type: 'number',
            describe: `prompts run at the same time (default ${DEFAULT_CONCURRENCY}); with --run-name it takes the place of num-workers x batch-size, still capped by --max-concurrency`,
            group: GENERATION,
          })
          .option('max-turns', {
            type: 'number',
            default: DEFAULT_MAX_TURNS,
            describe: 'model calls per prompt; at the limit one more call asks for a summary (completed: false)',
            group: GENERATION,
          })
          .option('request-timeout', {
            type: 'number',
            default: DEFAULT_REQUEST_TIMEOUT_S,
            describe:
              'seconds one HTTP attempt of a model call may take; waits for the rate limiter, a backoff or a Retry-After never count. Over it the attempt is retried, and the last one fails as a timeout (retryable, exit 4)',
            group: GENERATION,
          })
          .option('seed', {
            type: 'number',
            describe: 'seed of the toolset sampling (per prompt: seed + prompt id); drawn and recorded when not given',
            group: TOOLS,
          })
          .option('workspace-root', {
            type: 'string',
            describe: "create each prompt's workspace under this directory (default: a temp directory, removed at the end)",
            group: TOOLS,
          })
          .option('keep-workspaces', { type: 'boolean', default: false, describe: "keep each prompt's workspace after it is done", group: TOOLS })
          .option('sandbox', {
            choices: SANDBOX_MODES,
            default: 'auto' as const,
            describe: `where terminal commands and code run; ${SANDBOX_HELP}`,
            group: TOOLS,
          })
          // One value per --tool-env (nargs 1): a plain array option would take the dataset file after it as well.
          .option('tool-env', {
            type: 'string',
            array: true,
            nargs: 1,
            describe:
              "pass this variable of hermes-generate's environment on to tool commands (repeatable); they get only PATH, HOME and TMPDIR (the workspace), a locale, TERM, TZ, these and the row's env, and never a value holding the key",
            group: TOOLS,
          })
          .option('tool-network', {
            type: 'boolean',
            default: false,
            describe:
              "let tool commands use this machine's network (bwrap, unshare); UNSAFE with an endpoint on the same host: tools can then call it with your session. Default: a network namespace with only its own loopback",
            group: TOOLS,
          })
          .option('tool-cgroups', {
            type: 'boolean',
            default: true,
            describe:
              "bound each prompt's tool processes together with a cgroup of its own (--tool-max-procs, --tool-memory) where this machine has writable cgroups " +
              '(v2 with pids and memory delegated, or v1 pids and memory), under every --sandbox but docker; the start line says which is in force ' +
              `(on this machine: ${limitsMechanism(detectCgroups())}). --no-tool-cgroups, or none usable: rlimits per process (bwrap, unshare)`,
            group: TOOLS,
          })
          .option('tool-max-procs', {
            type: 'number',
            default: DEFAULT_TOOL_LIMITS.maxProcs,
            describe: "processes alive at once: all of a prompt's tool processes together under cgroups, else one tool command's (bwrap, unshare)",
            group: TOOLS,
          })
          .option('tool-memory', {
            type: 'string',
            default: formatSize(DEFAULT_TOOL_LIMITS.memoryBytes).replace(' GiB', 'g'),
            describe:
              "memory, e.g. 512m, 4g: of all a prompt's tool processes together under cgroups (then OOM-killed), else the private writable memory of each process (bwrap, unshare)",
            group: TOOLS,
          })
          .option('tool-cpu-seconds', {
            type: 'number',
            default: DEFAULT_TOOL_LIMITS.cpuSeconds,
            describe: 'CPU seconds each tool process may use (an rlimit; bwrap, unshare)',
            group: TOOLS,
          })
          .option('cwd-root', {
            type: 'string',
            describe:
              "a row's cwd must lie under this directory, or the prompt fails at setup (default: the first dataset file's directory; the current directory for stdin)",
            group: TOOLS,
          })
          .option('tool-concurrency', {
            type: 'number',
            default: defaultToolConcurrency(),
            describe: 'tool processes (commands, code runs) running at once across all prompts; default 2 per CPU core, at least 2',
            group: TOOLS,
          })
          .option('tool-timeout', {
            type: 'number',
            default: 120,
            describe: 'seconds one tool call may take: a command or code run has its processes killed then, any other call is abandoned',
            group: TOOLS,
          }),
      examples: [
        ['cat prompts.jsonl | $0 --model my-model > trajectories.jsonl', 'generate with the endpoint from HERMES_BASE_URL / HERMES_API_KEY'],
        ['$0 prompts.jsonl -o out.jsonl --toolsets terminal,file --seed 7 -c 8', 'fixed toolsets, 8 prompts at a time'],
        ['$0 prompts.jsonl --config hermes.yaml --model taotoken/gpt-5 --reasoning-effort high', 'a provider from the config file'],
        ['$0 prompts.jsonl --run-name rl_coding_20250612 --batch-size 10 --num-workers 4 > /dev/null', 'a resumable run in data/rl_coding_20250612/'],
        ['$0 prompts.jsonl --run-name rl_coding_20250612 --resume', 'continue it after a crash or Ctrl-C: finished records are never run again'],
        [
          '$0 prompts.jsonl --run-name cheap_v1 --batch-api --prices prices.yaml',
          "every model call through the provider's batch API, at its batch price (docs/batch-api.md)",
        ],
      ],
      run: (args, ctx) => runGenerate(args, ctx),
    }),
    doctorCommand,
    listDistributionsCommand,
  ],
};

export function main(): void {
  runMain(spec);
}
