// doctor's sequence: the configuration as resolved (no network when it is wrong), each proxy variable's
// address, then one minimal chat completion; a path that serves nothing is tried with /v1 toggled, and
// an unknown model is looked up in GET /models; with --batch-api, the batch API's routes
// (checkBatchRoutes.ts). Stops at the first failure that hides the next.
import { ExitCode, replyCost, roundUsd, type PriceTable } from '@hermes-datagen/core';
import {
  DEFAULT_RETRY_AFTER_CAP_MS,
  describeEndpoint,
  describeProxy,
  endpointFetch,
  endpointUrl,
  headerValues,
  inspectEndpoint,
  proxyVariables,
  type Endpoint,
  type EndpointArgs,
  type EndpointInspection,
  type EndpointIo,
  type Origin,
} from '@hermes-datagen/core/endpoint';
import { failureExitCode } from '../failureKinds.js';
import { checkBatchRoutes } from './checkBatchRoutes.js';
import {
  judgeChat,
  judgePathVariant,
  judgeUnknownModel,
  listedModels,
  outcomeOf,
  pathVariant,
  type ChatContext,
  type ChatVerdict,
  type Check,
  type Exchange,
} from './judgeExchange.js';
import { exchange, probeProxy, proxyAddress, type RequestParts } from './networkProbe.js';

export interface EndpointCheckOptions {
  readonly timeoutMs: number;
  /** What the probe carries besides model and messages: a run's tools and reasoning_effort (doctorCommand.ts). */
  readonly request?: Readonly<Record<string, unknown>>;
  /** --prices: the report says what the probe cost, or that the model has no price. */
  readonly prices?: PriceTable | undefined;
  /** --batch-api: the routes of the batch API are checked too (checkBatchRoutes.ts). */
  readonly batchApi?: boolean | undefined;
}

export interface EndpointCheckResult {
  /**
   * 0 healthy, 2 the configuration is wrong (found before any request); else the failures' exit code
   * from the one table (failureKinds.ts): 1 needs a fix, 4 worth retrying later.
   */
  readonly exitCode: number;
  readonly inspection: EndpointInspection;
  readonly checks: readonly Check[];
}

export async function checkEndpoint(args: EndpointArgs, io: EndpointIo, options: EndpointCheckOptions): Promise<EndpointCheckResult> {
  const inspection = await inspectEndpoint(args, io);
  const warnings: Check[] = inspection.warnings.map((w) => ({ id: w.id, status: 'warn', message: w.message }));
  const endpoint = inspection.endpoint;
  if (!endpoint) {
    const problems: Check[] = inspection.problems.map((p) => ({ id: p.id, status: 'fail', message: p.message }));
    return { exitCode: ExitCode.usage, inspection, checks: [...problems, ...warnings] };
  }
  const checks: Check[] = [{ id: 'configuration', status: 'ok', message: `configuration: ${describeEndpoint(endpoint)}` }, ...warnings];
  const finish = (): EndpointCheckResult => ({
    exitCode: failureExitCode(checks.filter((c) => c.status === 'fail').map((c) => c.id)),
    inspection,
    checks,
  });

  const proxyChecks = await checkProxies(endpoint, inspection.env, options.timeoutMs);
  checks.push(...proxyChecks);
  if (proxyChecks.some((c) => c.status === 'fail')) return finish();

  checks.push(...(await checkChat(endpoint, inspection, options)));
  // With the chat probe failing, the batch routes would fail for the same reason (a bad key, a wrong path).
  if (options.batchApi === true && !checks.some((c) => c.status === 'fail')) {
    checks.push(await checkBatchRoutes(endpointFetch(endpoint), endpoint.baseUrl, authorizationOf(endpoint), options.timeoutMs));
  }
  return finish();
}

async function checkProxies(endpoint: Endpoint, env: Readonly<Record<string, string>>, timeoutMs: number): Promise<Check[]> {
  const distinct = [...new Map(proxyVariables(env).map((p) => [p.url.href, p])).values()];
  const probes = await Promise.all(distinct.map((proxy) => probeProxy(proxy, timeoutMs)));
  return probes.map((probe): Check => {
    const used = endpoint.proxy?.url.href === probe.proxy.url.href;
    if (probe.reachable) {
      return {
        id: 'proxy',
        status: 'ok',
        message: `${describeProxy(probe.proxy)} accepts connections${used ? `; requests to ${endpoint.host} go through it` : ''}`,
      };
    }
    const loopback = /^(localhost|127\.\d+\.\d+\.\d+|\[?::1\]?)$/i.test(probe.proxy.url.hostname);
    const failed = `${loopback ? 'local proxy failed' : 'proxy unreachable'}: ${proxyAddress(probe)} ${probe.code === 'ECONNREFUSED' ? 'refuses connections (connection refused)' : `cannot be reached (${probe.code ?? 'no answer'})`}`;
    const names = proxyVariables(env)
      .filter((p) => p.url.href === probe.proxy.url.href)
      .map((p) => p.name)
      .join(' and ');
    if (used) {
      return {
        id: 'proxy-dead',
        status: 'fail',
        message: `${failed}; requests to ${endpoint.host} go through it, so every call fails`,
        fix: `start the proxy, or unset ${names} if ${endpoint.host} is reachable directly (or add it to no_proxy)`,
      };
    }
    return {
      id: 'proxy-dead',
      status: 'warn',
      message: `${failed}; requests to ${endpoint.host} do not use it, but other tools and sub-processes that read ${names} will fail`,
      fix: `start the proxy, or unset ${names}`,
    };
  });
}

async function checkChat(endpoint: Endpoint, inspection: EndpointInspection, options: EndpointCheckOptions): Promise<Check[]> {
  const { timeoutMs } = options;
  const fetchFn = endpointFetch(endpoint);
  const authorization = authorizationOf(endpoint);
  const chat = (baseUrl: string): ReturnType<typeof exchange> =>
    exchange(
      fetchFn,
      'POST',
      endpointUrl(baseUrl, 'chat/completions'),
      {
        headers: { ...authorization, 'content-type': 'application/json' },
        // The run's first request, as a run sends it: its tools and reasoning_effort, and no max_tokens (a run sends none).
        body: JSON.stringify({ model: endpoint.model, messages: [{ role: 'user', content: 'Reply with OK.' }], ...options.request }),
      },
      timeoutMs,
    );
  const context: ChatContext = {
    model: endpoint.model,
    key: `$${endpoint.apiKeyEnv} (fingerprint ${endpoint.apiKey.fingerprint}, from ${originText(inspection.apiKey?.origin ?? endpoint.origins.apiKey)})`,
    keyVariable: endpoint.apiKeyEnv,
    timeoutMs,
    timeoutFlag: '--timeout',
    retryAfterCapMs: DEFAULT_RETRY_AFTER_CAP_MS,
  };

  // One request at a base URL, judged; an unknown model is looked up in that base URL's GET /models.
  const judgeAt = async (baseUrl: string): Promise<Judged> => {
    const answer = await chat(baseUrl);
    const verdict = judgeChat(answer, context);
    if (!verdict.unknownModel) return { verdict, check: verdict.check, outcome: outcomeOf(answer), answer };
    const listing = await exchange(fetchFn, 'GET', endpointUrl(baseUrl, 'models'), { headers: authorization }, timeoutMs);
    return { verdict, check: judgeUnknownModel(verdict.check, endpoint.model, listedModels(listing)), outcome: outcomeOf(answer), answer };
  };

  const first = await judgeAt(endpoint.baseUrl);
  if (!first.verdict.wrongPath) return [first.check, ...probeCost(first, endpoint.model, options.prices)];
  const variant = pathVariant(endpoint.baseUrl);
  const second = await judgeAt(variant);
  const settled = second.verdict.wrongPath || second.check.status === 'ok';
  const checks = [
    judgePathVariant(first.check, endpoint.baseUrl, variant, second.verdict, settled ? second.outcome : `${second.outcome}, see the next finding`),
  ];
  // Once the path is right, the next problem (a bad key, an unknown model) is worth knowing now.
  if (!settled) checks.push({ ...second.check, message: `with ${variant}: ${second.check.message}` });
  return [...checks, ...probeCost(second, endpoint.model, options.prices)];
}

/** The headers every model request carries (--header, the provider's headers:), as the run's client sends them. */
function authorizationOf(endpoint: Endpoint): RequestParts['headers'] {
  return { accept: 'application/json', ...headerValues(endpoint.headers), authorization: `Bearer ${endpoint.apiKey.reveal()}` };
}

interface Judged {
  readonly verdict: ChatVerdict;
  readonly check: Check;
  readonly outcome: string;
  readonly answer: Exchange;
}

/** With --prices, what the answered probe cost (docs/cost.md), or that its model has no price. */
function probeCost({ check, answer }: Judged, model: string, prices: PriceTable | undefined): Check[] {
  if (prices === undefined || check.status !== 'ok' || answer.kind !== 'response') return [];
  let reply: unknown;
  try {
    reply = JSON.parse(answer.body);
  } catch {
    return [];
  }
  const cost = replyCost(reply, model, prices);
  if (cost.usd === undefined) {
    return [
      {
        id: 'cost',
        status: 'warn',
        message: `--prices has no price for model ${cost.model}: a run's records would carry no cost_usd`,
        fix: `add ${cost.model} to the prices file (docs/cost.md)`,
      },
    ];
  }
  return [{ id: 'cost', status: 'ok', message: `the probe cost $${roundUsd(cost.usd)} (${cost.tokens} tokens of ${cost.model} at --prices)` }];
}

/** How the report names where a value came from: `--model`, `$HERMES_API_KEY`, `HERMES_API_KEY in .env`. */
export function originText(origin: Origin): string {
  return origin.source === 'env' ? `$${origin.name}` : origin.name;
}
