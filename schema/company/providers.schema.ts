/** Model providers and tool servers (spec "LLM provider entry", "MCP tool-server entry"). */
import { z } from 'zod';
import { entityKey, nonEmpty, positive, stringMap, strings, text, url } from './fields.js';

export const LlmType = {
  OpenAI: 'openai',
  OpenAICompatible: 'openai-compatible',
  Anthropic: 'anthropic',
} as const;
export type LlmType = (typeof LlmType)[keyof typeof LlmType];

export const LlmProvider = z.strictObject({
  type: z.enum([LlmType.OpenAI, LlmType.OpenAICompatible, LlmType.Anthropic]),
  model: nonEmpty,
  /** Required for `openai-compatible` (a rule, not the schema, so the problem names the pairing). */
  base_url: url.optional(),
  timeout_seconds: positive.optional(),
  /** One or many keys; empty means the provider's environment fallback. */
  api_keys: strings.optional(),
});
export type LlmProvider = z.infer<typeof LlmProvider>;

export const Embeddings = z.strictObject({
  type: text.optional(),
  model: text.optional(),
  api_key: text.optional(),
  /** Fixes the vector column width at migration time. */
  dimensions: positive.optional(),
});

export const Providers = z.strictObject({
  llm: z.record(z.string(), LlmProvider).optional(),
  llm_order: strings.optional(),
  embeddings: Embeddings.optional(),
});

/** A tool server: local (`command`) or remote (`url`), exactly one of them (a rule). */
export const McpServer = z.strictObject({
  name: entityKey,
  /** `false`: one process per seat, credentials from the seat's `mcp_env`. */
  shared: z.boolean().optional(),
  command: nonEmpty.optional(),
  args: strings.optional(),
  env: stringMap.optional(),
  tool_prefix: text.optional(),
  url: url.optional(),
  headers: stringMap.optional(),
});
export type McpServer = z.infer<typeof McpServer>;
