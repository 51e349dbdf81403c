/** Model providers and tool servers (spec "LLM provider entry", "MCP tool-server entry"). */
import { z } from 'zod';
import {
  entityKey,
  headerMap,
  invalid,
  nonEmpty,
  positive,
  stringMap,
  strings,
  text,
  url,
} from './fields.js';

/** One model call's longest wait (a timer past 2^31 ms would fire at once). */
export const PROVIDER_TIMEOUT_MAX_SECONDS = 3600;

export const LlmType = {
  OpenAI: 'openai',
  OpenAICompatible: 'openai-compatible',
  Anthropic: 'anthropic',
} as const;
export type LlmType = (typeof LlmType)[keyof typeof LlmType];

export const LlmProvider = z
  .strictObject({
    type: z
      .enum([LlmType.OpenAI, LlmType.OpenAICompatible, LlmType.Anthropic])
      .describe('The wire it speaks: `openai`, `openai-compatible` or `anthropic`.'),
    model: nonEmpty.describe('Model name sent to the provider.'),
    /** Required for `openai-compatible` (a rule, not the schema, so the problem names the pairing). */
    base_url: url.optional().describe('Endpoint base URL; required for openai-compatible.'),
    timeout_seconds: positive
      .max(PROVIDER_TIMEOUT_MAX_SECONDS)
      .optional()
      .describe('Seconds one model call may take (at most an hour).'),
    /** One or many keys; empty means the provider's environment fallback. */
    api_keys: strings
      .optional()
      .describe('One or more keys (usually ${VAR}); empty: OPENAI_API_KEY or ANTHROPIC_API_KEY.'),
  })
  .describe('An LLM provider entry.');
export type LlmProvider = z.infer<typeof LlmProvider>;

/**
 * `type` stays free text: a stored document with a type this release does not build must stay valid, so
 * such a block is a `not_applied` warning (embeddings.ts), not a refusal.
 */
export const Embeddings = z.strictObject({
  type: text.optional().describe('The wire: `openai` (default) or `openai-compatible` (needs base_url).'),
  model: text.optional().describe('Embeddings model name.'),
  /** Beyond the spec's fields: a self-hosted server needs an endpoint. */
  base_url: url
    .optional()
    .describe('Endpoint base URL (with its /v1); default https://api.openai.com/v1 for openai.'),
  api_key: text.optional().describe('Its key (a secret, usually ${VAR}); empty: OPENAI_API_KEY for openai.'),
  /** Fixes the vector column width at migration time. */
  dimensions: positive.optional().describe('Vector width asked of the model and required of its answer.'),
  /** Beyond the spec's fields: where "related" starts depends on the model. */
  min_similarity: z
    .number()
    .min(0)
    .max(1)
    .optional()
    .describe(
      'Least cosine similarity at which a text counts as related: a page found by meaning, a lesson brought to a turn (default 0.3).',
    ),
});

export const Providers = z.strictObject({
  llm: z.record(z.string(), LlmProvider).optional().describe('Provider key → LLM provider entry.'),
  llm_order: strings.optional().describe('Provider keys in the order a seat without `llm` tries them.'),
  embeddings: Embeddings.optional().describe('The embeddings provider (a change needs a restart).'),
});

/** A tool server: local (`command`) or remote (`url`), exactly one of them (a rule). */
export const McpServer = z.strictObject({
  name: entityKey.describe('Name of the tool server: its identity, in /mcp-servers and mcp_env.'),
  /** `false`: one process per seat, credentials from the seat's `mcp_env`. */
  shared: z
    .boolean()
    .optional()
    .describe('true (default): one process for every seat; false: one per agent seat with its mcp_env.'),
  command: nonEmpty.optional().describe('Program of a local (stdio) server; give this or url.'),
  args: strings.optional().describe('Arguments of command.'),
  env: stringMap.optional().describe('Environment of command (values are secrets).'),
  /** Part of every function name a model is offered (OpenAI: `^[a-zA-Z0-9_-]{1,64}$`). */
  tool_prefix: z
    .string()
    .regex(/^[A-Za-z0-9_-]{0,32}$/, {
      message: 'at most 32 letters, digits, _ and - (tool names are function names)',
      ...invalid,
    })
    .optional()
    .describe('Prefix added to its tool names (at most 32 of A-Z a-z 0-9 _ -).'),
  url: url.optional().describe('Endpoint of a remote (streamable HTTP) server; give this or command.'),
  headers: headerMap.optional().describe('HTTP headers sent to url (values are secrets).'),
});
export type McpServer = z.infer<typeof McpServer>;
