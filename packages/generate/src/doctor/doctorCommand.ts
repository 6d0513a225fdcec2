// hermes-generate doctor: the single-prompt check to run before any batch. It resolves the endpoint
// exactly as a run would, sends the request a run's first call would send (the same tools,
// reasoning_effort and headers, from the same flags), and prints a report (not JSONL) naming the cause
// and the fix of each failure. Neither the key nor a secret header's value appears in it: every line
// passes through redact().
import { defineCommand, loadPrices, loadToolRegistry, pricesOption, redact, UsageError } from '@hermes-datagen/core';
import { describeHeaders, describeProxy, endpointOptions, type EndpointInspection, type Sourced } from '@hermes-datagen/core/endpoint';
import { wireTools } from '../agentLoop.js';
import { requestOptions } from '../requestOptions.js';
import { offeredTools, toolDefinition } from '../tools/toolRunner.js';
import { possibleToolsets, selectToolsets } from '../toolsetSampling.js';
import type { Check } from './judgeExchange.js';
import { checkEndpoint, originText, type EndpointCheckResult } from './checkEndpoint.js';

const DEFAULT_TIMEOUT_S = 15;

export const doctorCommand = defineCommand({
  command: 'doctor',
  describe:
    'check the endpoint configuration and the request a run sends first (its tools, reasoning_effort and headers, from the same flags); print the cause and fix of any failure (exit 0 healthy, 1 needs a fix, 2 configuration wrong, 4 worth retrying later)',
  options: (y) =>
    pricesOption(requestOptions(endpointOptions(y)), 'Options:', 'the report says what the probe cost')
      .option('timeout', { type: 'number', default: DEFAULT_TIMEOUT_S, describe: 'seconds to wait for each connection and answer' })
      .option('json', { type: 'boolean', describe: 'print the report as one JSON object instead of lines' })
      .option('batch-api', {
        type: 'boolean',
        default: false,
        describe: 'also check that the endpoint serves the batch API a run with --batch-api uses (GET /batches, GET /files), saying which route answered what',
      }),
  examples: [
    ['$0 doctor --env-file .env --model anthropic/claude-sonnet-4-6', 'check the gateway named by HERMES_BASE_URL in .env'],
    ['$0 doctor --config hermes.yaml --json', 'the same check as JSON, for scripts'],
    ['$0 doctor --batch-api', 'also check the batch API routes a run with --batch-api uses'],
    [
      '$0 doctor --toolsets terminal,file --reasoning-effort high',
      'the request a run with these flags sends: a deployment that refuses its tools or reasoning_effort fails here',
    ],
  ],
  run: async (args, ctx) => {
    if (!(args.timeout > 0)) throw new UsageError(`--timeout must be a positive number of seconds, not ${String(args.timeout)}`);
    // The tools a run with these flags may offer, all at once: a deployment that refuses any fails here.
    const registry = loadToolRegistry(args.toolsRegistry, ctx.io.cwd);
    const tools = offeredTools(possibleToolsets(selectToolsets(registry, args)), registry).map(toolDefinition);
    const result = await checkEndpoint(args, ctx.io, {
      timeoutMs: Math.max(1, Math.round(args.timeout * 1000)),
      prices: loadPrices(args, ctx.io.cwd),
      batchApi: args.batchApi,
      request: {
        ...(tools.length > 0 ? { tools: wireTools(tools) } : {}),
        ...(args.reasoningEffort === undefined ? {} : { reasoning_effort: args.reasoningEffort }),
      },
    });
    const text = args.json ? `${JSON.stringify(reportJson(result))}\n` : renderReport(result);
    ctx.io.stdout.write(redactSecrets(text, result.inspection));
    return result.exitCode;
  },
});

const VERDICTS: Record<number, string> = {
  0: 'healthy: the endpoint answered as an OpenAI-compatible API (exit 0)',
  1: 'the endpoint failed the check, and it needs a fix before a run can pass (exit 1)',
  2: 'the configuration is wrong; no request was made (exit 2)',
  4: 'the endpoint failed the check in a way that may pass later: try again (exit 4)',
};

export function renderReport(result: EndpointCheckResult): string {
  const { inspection } = result;
  const lines = ['hermes-generate doctor', ...settingLines(inspection).map(([label, value]) => `  ${label.padEnd(9)} ${value}`), ''];
  for (const check of result.checks) lines.push(...checkLines(check));
  lines.push('', VERDICTS[result.exitCode] ?? `exit ${result.exitCode}`);
  return `${lines.join('\n')}\n`;
}

function settingLines(inspection: EndpointInspection): [string, string][] {
  const sourced = (value: Sourced<string> | undefined, extra = ''): string =>
    value ? `${value.value}${extra}  (from ${originText(value.origin)})` : '(not set)';
  const upstream = inspection.modelId && inspection.model !== undefined && inspection.model !== inspection.modelId.value ? `, sent as ${inspection.model}` : '';
  const provider = inspection.provider ? `, provider ${inspection.provider}` : '';
  const key = inspection.apiKey
    ? `$${inspection.endpoint?.apiKeyEnv ?? inspection.apiKeyEnv.value}, fingerprint ${inspection.apiKey.value.fingerprint}  (from ${originText(inspection.apiKey.origin)})`
    : `$${inspection.apiKeyEnv.value}: no usable key  (variable from ${originText(inspection.apiKeyEnv.origin)})`;
  return [
    ['base URL', sourced(inspection.baseUrl)],
    ['model', sourced(inspection.modelId, `${upstream}${provider}`)],
    ['key', key],
    ['proxy', inspection.proxy ? describeProxy(inspection.proxy) : 'none'],
    ...(inspection.headers.length > 0 ? [['headers', describeHeaders(inspection.headers)] as [string, string]] : []),
  ];
}

function checkLines(check: Check): string[] {
  const label = { ok: 'ok  ', warn: 'warn', fail: 'FAIL' }[check.status];
  return [`${label}  ${check.message}`, ...(check.fix ? [`      fix: ${check.fix}`] : [])];
}

export function reportJson(result: EndpointCheckResult): unknown {
  const { inspection } = result;
  const sourced = (value: Sourced<string> | undefined): unknown =>
    value ? { value: value.value, source: value.origin.source, from: value.origin.name } : null;
  return {
    ok: result.exitCode === 0,
    exit_code: result.exitCode,
    configuration: {
      base_url: sourced(inspection.baseUrl),
      model: sourced(inspection.modelId),
      model_sent: inspection.model ?? null,
      provider: inspection.provider ?? null,
      api_key_env: sourced(inspection.apiKeyEnv),
      api_key: inspection.apiKey
        ? {
            variable: inspection.endpoint?.apiKeyEnv ?? inspection.apiKeyEnv.value,
            fingerprint: inspection.apiKey.value.fingerprint,
            source: inspection.apiKey.origin.source,
            from: inspection.apiKey.origin.name,
          }
        : null,
      proxy: inspection.proxy ? describeProxy(inspection.proxy) : null,
      headers: inspection.headers.map((header) => ({
        name: header.name,
        ...(typeof header.value === 'string' ? { value: header.value } : { secret_fingerprint: header.value.fingerprint }),
        from: header.origin.name,
      })),
    },
    checks: result.checks.map((c) => ({ id: c.id, status: c.status, message: c.message, ...(c.fix ? { fix: c.fix } : {}) })),
  };
}

/**
 * The resolved key, and the value of the key variables and of every variable whose name says it is a
 * secret (a key that failed validation was never resolved, yet an error may still echo it). A value
 * that cannot be a secret (short, or a placeholder like EMPTY) is left alone by redact: redacting `x`
 * would mangle the report, not protect anything.
 */
function redactSecrets(text: string, inspection: EndpointInspection): string {
  // Secret header values were registered as they were resolved (core requestHeaders.ts): redact removes them too.
  let out = redact(text, inspection.apiKey?.value);
  for (const [name, value] of Object.entries(inspection.env)) {
    if (name === inspection.apiKeyEnv.value || /KEY|TOKEN|SECRET|PASSWORD/i.test(name)) out = redact(out, value);
  }
  return out;
}
