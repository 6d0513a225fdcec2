// @hermes-datagen/core/endpoint: the one endpoint configuration (base URL, key, model) and the
// model client. A subpath of its own because it loads openai, undici and yaml: CLIs that never
// call a model start without them (pipelines start several processes, so start-up time counts).
export * from './envFile.js';
export * from './configFile.js';
export * from './proxy.js';
export * from './endpoint.js';
export * from './chatClient.js';
export * from './httpFetch.js';
