// @hermes-datagen/core/endpoint: the one endpoint configuration (base URL, key, model) and the
// model client, every name a CLI uses. A subpath of its own because it loads openai, undici and yaml: CLIs that
// never call a model start without them (pipelines start several processes, so start-up time counts).

// Endpoint: its flags and --help, its resolution (flag > environment > config file), and what logs may say of it.
export { ENDPOINT_ENV_HELP, endpointOptions, type EndpointArgs } from './endpointOptions.js';
export { inspectEndpoint, resolveEndpoint } from './resolveEndpoint.js';
export { describeHeaders, headerValues } from './requestHeaders.js';
export {
  describeEndpoint,
  endpointIdentity,
  type Endpoint,
  type EndpointInspection,
  type EndpointIo,
  type Origin,
  type Sourced,
} from './endpoint.js';
export { describeProxy, proxyPort, proxyVariables, type ProxyVariable } from './proxy.js';

// Model client: chat completions with bounded retries, and what its replies and faults mean.
export {
  DEFAULT_RETRY_AFTER_CAP_MS,
  REPLY_FAULT_HEADER,
  createChatClient,
  embeddedErrorStatus,
  endpointFetch,
  endpointUrl,
  retrying,
  statusError,
  type ChatClient,
  type ChatRequestOptions,
  type WaitTracker,
} from './chatClient.js';

// The one rate limiter of a process and the client behind it: waits, paces from every budget dialect, finds the quota.
export { DEFAULT_RETRIES, limitedClient } from './limitedClient.js';
export { pause } from './pause.js';
export { DEFAULT_QUOTA_WAIT_S, QuotaExhaustedError, RateLimiter } from './rateLimiter.js';
export type { FetchLike } from './httpFetch.js';
export { gatewayErrorFields, readGatewayError, type GatewayErrorKind } from './gatewayErrors.js';
