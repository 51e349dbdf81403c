/** LLM providers: the neutral call, the wire clients, the credential pool and the registry. */
export { anthropicBody, anthropicClient, anthropicVersion } from './anthropic.client.js';
export { streamFrom } from './call-stream.js';
export { defaultMaxTokens, type ClientConfig, type ProviderClient } from './client.js';
export {
  CoolReason,
  CredentialPool,
  defaultTiming,
  envFallbacks,
  isWholeRefName,
  type Acquired,
  type KeyLease,
  type PoolOptions,
  type PoolTiming,
} from './credential-pool.js';
export { retryAfterMs, type Fetch } from './http.js';
export {
  LlmAbortedError,
  LlmAuthError,
  LlmError,
  LlmErrorKind,
  LlmMalformedStreamError,
  LlmNetworkError,
  LlmRateLimitedError,
  LlmRefusedError,
  LlmServerError,
  LlmTimeoutError,
  LlmUnavailableError,
  type ChainAttempt,
  type ProviderName,
} from './llm.errors.js';
export {
  StopReason,
  type LlmDelta,
  type LlmMessage,
  type LlmRequest,
  type LlmResult,
  type LlmStream,
  type LlmTool,
  type LlmToolCall,
  type LlmUsage,
} from './llm.types.js';
export { openaiBody, openaiClient } from './openai.client.js';
export { readProviderConfig, type ProviderConfig } from './provider-config.js';
export {
  createProviderRegistry,
  defaultTimeoutSeconds,
  ProviderEventType,
  ProviderRegistry,
  type CallerInfo,
  type RegistryOptions,
} from './registry.js';
export { parseSse, type SseEvent } from './sse.js';
