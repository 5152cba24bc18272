export * from './types.js';
export type { CallRecord, CallStore } from './call-store.js';
export { createLlmClient } from './client.js';
export type { CreateLlmClientOptions, LlmStats, MeteredLlmClient } from './client-options.js';
export { costUsd } from './cost.js';
export { EndpointQueue, type EndpointLimits } from './endpoint-queue.js';
export { OpenAiProvider, type OpenAiProviderOptions } from './openai-provider.js';
// openai-errors.ts is not re-exported: it loads the openai SDK, which a sim run must not pay for
// (test/cli-startup.test.ts); the OpenAI provider imports it lazily.
export { requestHash, type HashedRequest } from './request-hash.js';
export {
  backoffDelay,
  isRetryable,
  parseRetryAfter,
  withRetry,
  type RetryOptions,
} from './retry.js';
export { TokenBucket } from './token-bucket.js';
export {
  checkTokenizer,
  countMessageTokens,
  countTokens,
  createTokenCounter,
  tokenCounterFor,
  type TokenCounter,
} from './tokenizer.js';
export {
  roleTokenizer,
  roleTokenCounter,
  tokenizerProvenance,
  tokenizerSetting,
  checkTokenizers,
  checkServerTokenizers,
} from './tokenizer-choice.js';
export { ServerTokenCounter } from './server-tokenizer.js';
export { promptTexts } from './chat-framing.js';
export { configuredRoles, roleConfig } from './role-config.js';
