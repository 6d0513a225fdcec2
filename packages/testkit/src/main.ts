// hermes-testkit: serves the scripted OpenAI-compatible endpoint (a test and demo aid, not a model)
// until SIGINT/SIGTERM, printing its base URL as the one line on stdout.
import { once } from 'node:events';
import { defineCommand, main as runMain, UsageError, type CliSpec } from '@hermes-datagen/core';
import { loadScript } from './script.js';
import { batchFlags, batchFromArgs } from './batchFlags.js';
import { quotaFromArgs, quotaOptions } from './quotaOptions.js';
import { startScriptedEndpoint, statsSnapshot } from './server.js';

function apiKeyFrom(env: NodeJS.ProcessEnv, variable: string | undefined): string | undefined {
  if (variable === undefined) return undefined;
  const key = env[variable];
  if (key === undefined || key === '') {
    throw new UsageError(
      `--api-key-env ${variable}: the variable is not set or empty; export it before starting, or leave out --api-key-env to accept any key`,
    );
  }
  return key;
}

/** A port that is taken or not ours to take is a usage error naming it, not a crash. */
function listenError(error: unknown, host: string, port: number): UsageError | undefined {
  const code = typeof error === 'object' && error !== null ? Reflect.get(error, 'code') : undefined;
  if (code === 'EADDRINUSE')
    return new UsageError(
      `--port ${port}: ${host}:${port} is in use (another server, or a testkit still running); choose another --port, or 0 for any free one`,
    );
  if (code === 'EACCES') return new UsageError(`--port ${port}: not allowed to listen on ${host}:${port}; choose a port above 1023, or 0 for any free one`);
  if (code === 'EADDRNOTAVAIL') return new UsageError(`--host ${host}: not an address of this machine`);
  return undefined;
}

const GATEWAY_DIALECTS = 'Gateway dialects (docs/gateway-errors.md):';

export const spec: CliSpec = {
  name: 'hermes-testkit',
  summary: 'A scripted OpenAI-compatible endpoint for tests and demos (replies come from a script or fixed rules; it is not a model).',
  // It reads no records and calls no endpoint: no check, input or retryable failures.
  exitCodes: [0, 2, 70, 130],
  commands: [
    defineCommand({
      // Its only command, so also the default: `hermes-testkit --help` shows serve's options.
      command: ['serve', '$0'],
      describe:
        'serve chat completions (JSON and SSE), /models, the batch API (/files, /batches) and /testkit/stats on HOST:PORT under the base path; prints the base URL',
      options: (y) =>
        batchFlags(quotaOptions(y))
          .option('script', {
            type: 'string',
            group: 'Serve options:',
            describe: 'script JSON file (format: packages/testkit/README.md); without one, the rule-based policy answers',
          })
          .option('port', { type: 'number', default: 0, group: 'Serve options:', describe: 'port to listen on (0: any free port)' })
          .option('host', { type: 'string', default: '127.0.0.1', group: 'Serve options:', describe: 'address to listen on' })
          .option('base-path', { type: 'string', default: '/v1', group: 'Serve options:', describe: 'path prefix of the API (e.g. /api/v1)' })
          .option('api-key-env', {
            type: 'string',
            group: 'Serve options:',
            describe: 'require "Authorization: Bearer <key>" with the key from this environment variable',
          })
          .option('latency-ms', { type: 'number', default: 0, group: 'Serve options:', describe: 'delay before every chat-completion reply' })
          .option('seed', { type: 'number', default: 0, group: 'Serve options:', describe: 'seed of the fault-rate draws' })
          .option('insufficient-quota', {
            type: 'boolean',
            default: false,
            describe: 'answer every chat completion as OpenAI does for an account without quota: 429 insufficient_quota',
            group: GATEWAY_DIALECTS,
          })
          .option('reject-param', {
            type: 'string',
            array: true,
            describe:
              "answer a request that sends this parameter (e.g. reasoning_effort, tools) with LiteLLM's 400 UnsupportedParamsError naming it (repeatable)",
            group: GATEWAY_DIALECTS,
          })
          .option('served-model', { type: 'string', describe: "the reply's model: what the gateway says it served (a fallback)", group: GATEWAY_DIALECTS }),
      examples: [
        ['hermes-testkit serve --script fixtures/testkit/coding-task.json', 'serve a script on a free port'],
        ['hermes-testkit serve --port 8000 --api-key-env TESTKIT_KEY --latency-ms 100', 'fixed port, key required, 100 ms per reply'],
        ['hermes-testkit serve --rps 20 --limit-headers openai --retry-after none', 'a gateway quota of 20 requests a second, with OpenAI budget headers'],
        [
          'hermes-testkit serve --reject-param reasoning_effort --served-model fallback-model',
          'refuse reasoning_effort as LiteLLM does; report another model served',
        ],
        [
          'hermes-testkit serve --batch-delay-ms 2000 --batch-fail-share 0.1 --batch-expire-nth 3',
          'batches take 2 s, a tenth of lines fail, the third batch expires',
        ],
      ],
      run: async (args, ctx) => {
        const apiKey = apiKeyFrom(ctx.io.env, args['api-key-env']);
        const endpoint = await startScriptedEndpoint({
          ...(args.script === undefined ? {} : { script: loadScript(args.script, ctx.io.cwd) }),
          ...(apiKey === undefined ? {} : { apiKey }),
          host: args.host,
          port: args.port,
          basePath: args['base-path'],
          latencyMs: args['latency-ms'],
          seed: args.seed,
          insufficientQuota: args['insufficient-quota'],
          rejectParams: args['reject-param'],
          servedModel: args['served-model'],
          // A long-running server must not grow with every request it answers.
          recordRequests: false,
          quota: quotaFromArgs(args),
          batch: batchFromArgs(args),
        }).catch((error: unknown) => {
          throw listenError(error, args.host, args.port) ?? error;
        });
        ctx.io.stdout.write(`${endpoint.url}\n`);
        ctx.log.info(`serving a scripted endpoint (not a model) at ${endpoint.url}; stop it with Ctrl-C`);
        if (!ctx.signal.aborted) await once(ctx.signal, 'abort');
        await endpoint.close();
        const { batch, ...chat } = statsSnapshot(endpoint.stats);
        ctx.log.info(`stats: ${JSON.stringify(chat)} (chat-completion requests received, answered, refused with a 429)`);
        const { submissions, ...batchCounts } = batch;
        const resubmitted = Object.keys(submissions).filter((customId) => (submissions[customId] ?? 0) > 1);
        ctx.log.info(`batch stats: ${JSON.stringify({ ...batchCounts, customIds: Object.keys(submissions).length, resubmitted })}`);
      },
    }),
  ],
};

export function main(): void {
  runMain(spec);
}
