// Resolves the one endpoint every model call uses from the flags, the environment (an --env-file fills
// gaps) and the config file, in that precedence, and collects every problem found on the way.
import { readEndpointConfig, type EndpointConfig } from './configFile.js';
import {
  endpointHost,
  type Endpoint,
  type EndpointInspection,
  type EndpointIo,
  type EndpointProblemId,
  type EndpointWarningId,
  type Finding,
} from './endpoint.js';
import { checkBaseUrl, checkProxy, readKey } from './endpointChecks.js';
import { competingVariables, Environment, firstGiven, fromConfig, fromFlag } from './endpointEnvironment.js';
import { DEFAULT_API_KEY_ENV, type EndpointArgs } from './endpointOptions.js';
import { loadEnvFile, type EnvFile } from './envFile.js';
import { UsageError } from './errors.js';
import { missingBaseUrlMessage, selectProvider } from './provider.js';
import { resolveHeaders } from './requestHeaders.js';

/** The endpoint every model call uses; a UsageError naming each problem and its fix otherwise. */
export async function resolveEndpoint(args: EndpointArgs, io: EndpointIo): Promise<Endpoint> {
  const inspection = await inspectEndpoint(args, io);
  if (inspection.endpoint) return inspection.endpoint;
  const [first, ...rest] = inspection.problems;
  if (rest.length === 0 && first) throw new UsageError(first.message);
  throw new UsageError(
    `the endpoint configuration has ${inspection.problems.length} problems:\n${inspection.problems.map((p) => `  - ${p.message}`).join('\n')}`,
  );
}

export async function inspectEndpoint(args: EndpointArgs, io: EndpointIo): Promise<EndpointInspection> {
  const problems: Finding<EndpointProblemId>[] = [];
  const warnings: Finding<EndpointWarningId>[] = [];
  let envFile: EnvFile | undefined;
  if (args.envFile !== undefined) {
    try {
      envFile = loadEnvFile(args.envFile, io.cwd);
    } catch (err) {
      problems.push({ id: 'env-file-unreadable', message: (err as Error).message });
    }
  }
  let config: EndpointConfig | undefined;
  if (args.config !== undefined) {
    try {
      config = readEndpointConfig(args.config, io.cwd);
    } catch (err) {
      problems.push({ id: 'config-invalid', message: (err as Error).message });
    }
  }
  const env = new Environment(io.env, envFile);

  const modelId = firstGiven(fromFlag('--model', args.model), env.get('HERMES_MODEL'), fromConfig(config, 'default_model', config?.defaultModel));
  const selection = selectProvider(modelId?.value, config);
  const provider = selection.provider;
  const providerBaseUrl = provider && fromConfig(config, `providers.${provider.name}.base_url`, provider.baseUrl);
  const baseUrl = firstGiven(fromFlag('--base-url', args.baseUrl), env.get('HERMES_BASE_URL'), env.get('OPENAI_BASE_URL'), providerBaseUrl);
  const apiKeyEnv = firstGiven(
    fromFlag('--api-key-env', args.apiKeyEnv),
    provider && fromConfig(config, `providers.${provider.name}.api_key_env`, provider.apiKeyEnv),
  ) ?? { value: DEFAULT_API_KEY_ENV, origin: { source: 'default', name: 'the default' } };

  if (!modelId) {
    problems.push({ id: 'model-missing', message: 'no model: pass --model ID, export HERMES_MODEL, or set default_model in --config' });
  } else if (selection.problem) {
    problems.push({ id: 'model-invalid', message: selection.problem });
  }
  const checkedBaseUrl = baseUrl && checkBaseUrl(baseUrl, problems);
  if (!baseUrl) problems.push({ id: 'base-url-missing', message: missingBaseUrlMessage(modelId, config) });
  if (baseUrl && providerBaseUrl && baseUrl.origin.source !== 'flag' && baseUrl.value !== providerBaseUrl.value) {
    warnings.push({
      id: 'config-overridden',
      message: `${baseUrl.origin.name} (${baseUrl.value}) overrides ${providerBaseUrl.origin.name} (${providerBaseUrl.value}): the environment wins over the config file; unset ${baseUrl.origin.name} to use the provider`,
    });
  }

  const apiKey = readKey(apiKeyEnv, env, problems);
  const headers = resolveHeaders(
    args.header,
    provider && config && provider.headers.size > 0 ? { path: config.path, provider: provider.name, headers: provider.headers } : undefined,
    (name) => env.get(name)?.value,
    (message) => problems.push({ id: 'header-invalid', message }),
  );
  const proxy = checkedBaseUrl ? checkProxy(checkedBaseUrl, env.merged, problems) : undefined;
  warnings.push(...env.overriddenFileValues([apiKeyEnv.value, 'OPENAI_API_KEY', 'HERMES_BASE_URL', 'OPENAI_BASE_URL', 'HERMES_MODEL']));
  const competing = competingVariables(env.merged);
  if (competing) warnings.push(competing);

  const endpoint =
    problems.length === 0 && checkedBaseUrl && modelId && apiKey
      ? {
          baseUrl: checkedBaseUrl,
          host: endpointHost(checkedBaseUrl),
          modelId: modelId.value,
          model: selection.model ?? modelId.value,
          provider: provider?.name,
          apiKey: apiKey.value,
          apiKeyEnv: apiKey.variable,
          proxy,
          headers,
          origins: { baseUrl: baseUrl.origin, model: modelId.origin, apiKeyEnv: apiKeyEnv.origin, apiKey: apiKey.origin },
          warnings,
        }
      : undefined;
  return {
    baseUrl,
    modelId,
    model: selection.model,
    provider: provider?.name,
    apiKeyEnv,
    apiKey,
    proxy,
    headers,
    env: env.merged,
    problems,
    warnings,
    endpoint,
  };
}
