// The public surface of @hermes-datagen/testkit.
export * from './script.js';
export * from './server.js';
export { policyReply, planTurns } from './policy.js';
export { fingerprint } from './fingerprint.js';
export { echoToken, echoTokens, expectedEchoResult, type EchoTokens } from './echoTokens.js';
export { LIMIT_HEADER_STYLES, Quota, RETRY_AFTER_STYLES, type LimitHeaderStyle, type QuotaOptions, type RetryAfterStyle } from './quota.js';
export { BATCH_ENDPOINT, DEFAULT_BATCH_DELAY_MS, type BatchOptions, type BatchStats } from './batch.js';
export { OPENAI_BATCH_LIMITS, type BatchError, type BatchLimits } from './batchInput.js';
