// Which provider of the config file a model id selects, and the name sent upstream.
import type { EndpointConfig, ProviderConfig } from './configFile.js';
import type { Sourced } from './endpoint.js';

export interface ProviderSelection {
  readonly provider: ProviderConfig | undefined;
  /** The name sent upstream. */
  readonly model: string | undefined;
  readonly problem?: string;
}

/**
 * `provider/model…` picks a provider of the config when its first part names one, and the rest is sent
 * upstream; otherwise the id is sent whole (`anthropic/claude-sonnet-4-6` is a gateway's own naming),
 * through the config's provider when it has exactly one.
 */
export function selectProvider(modelId: string | undefined, config: EndpointConfig | undefined): ProviderSelection {
  if (modelId === undefined) return { provider: undefined, model: undefined };
  if (/\s/.test(modelId)) return { provider: undefined, model: modelId, problem: `model id ${JSON.stringify(modelId)} contains whitespace: remove it` };
  const slash = modelId.indexOf('/');
  const named = slash > 0 ? config?.providers.get(modelId.slice(0, slash)) : undefined;
  if (named) {
    const model = modelId.slice(slash + 1);
    if (model === '') return { provider: named, model, problem: `model id ${modelId} names provider ${named.name} but no model: write ${named.name}/MODEL` };
    return { provider: named, model };
  }
  const only = config && config.providers.size === 1 ? [...config.providers.values()][0] : undefined;
  return { provider: only, model: modelId };
}

export function missingBaseUrlMessage(modelId: Sourced<string> | undefined, config: EndpointConfig | undefined): string {
  const names = config ? [...config.providers.keys()] : [];
  const hint =
    config && names.length > 1 && modelId
      ? `; the model id ${modelId.value} names none of the providers in ${config.path} (${names.join(', ')}): write it as ${names[0]}/${modelId.value}`
      : '';
  return `no base URL: pass --base-url URL, export HERMES_BASE_URL, or give a provider with base_url in --config${hint}`;
}
