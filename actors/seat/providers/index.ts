/** LLM providers: the neutral call, the wire clients, the credential pool and the registry. */
export { anthropicClient } from './anthropic.client.js';
export { streamFrom } from './call-stream.js';
export { type ProviderClient } from './client.js';
export { CredentialPool, type KeyLease } from './credential-pool.js';
export { embeddingsClient, type EmbeddingsClient } from './embeddings.client.js';
export { maxAnswerBytes, retryAfterMs } from './http.js';
export { nodePost } from './http-post.js';
export {
  LlmAbortedError,
  LlmAuthError,
  LlmError,
  LlmMalformedStreamError,
  LlmNetworkError,
  LlmRateLimitedError,
  LlmRefusedError,
  LlmServerError,
  LlmTimeoutError,
  LlmUnavailableError,
} from './llm.errors.js';
export {
  type LlmDelta,
  type LlmMessage,
  type LlmRequest,
  type LlmResult,
  type LlmStream,
  type LlmToolCall,
  type LlmUsage,
  type UnfinishedCall,
} from './llm.types.js';
export { openaiClient } from './openai.client.js';
export {
  createProviderRegistry,
  ProviderRegistry,
  type CallerInfo,
  type RegistryOptions,
} from './registry.js';
export { parseSse, type SseEvent } from './sse.js';
