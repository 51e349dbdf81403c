/**
 * The provider-neutral call: what the turn engine asks of any LLM provider, and what it gets back.
 * Each client translates these to and from its own wire format.
 */

/** A tool call the model asked for. `arguments` is the parsed JSON object of `raw_arguments`. */
export interface LlmToolCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: Record<string, unknown>;
  /** The arguments exactly as the model produced them. */
  readonly raw_arguments: string;
  /** False when `raw_arguments` is not a JSON object (then `arguments` is `{}`): the model's fault, not the wire's. */
  readonly arguments_valid: boolean;
}

export type LlmMessage =
  | { readonly role: 'system'; readonly content: string }
  | { readonly role: 'user'; readonly content: string }
  | {
      readonly role: 'assistant';
      readonly content: string;
      readonly tool_calls?: readonly Pick<LlmToolCall, 'id' | 'name' | 'arguments'>[];
    }
  | {
      readonly role: 'tool';
      readonly tool_call_id: string;
      readonly content: string;
      readonly is_error?: boolean;
    };

export interface LlmTool {
  readonly name: string;
  readonly description: string;
  /** JSON Schema of the tool's input object. */
  readonly input_schema: Record<string, unknown>;
}

export interface LlmRequest {
  /** Placed before `messages`; `role: 'system'` messages are allowed too. */
  readonly system?: string;
  readonly messages: readonly LlmMessage[];
  readonly tools?: readonly LlmTool[];
  /** Defaults to 4096 (Anthropic requires a value). */
  readonly max_tokens?: number;
  readonly temperature?: number;
  /** Ask the provider to cache the stable prefix (system and tools) where the wire supports marking it. */
  readonly cache_prompt?: boolean;
  /** The caller's cancellation; an abort ends the call with `LlmAbortedError` and no fallback. */
  readonly signal?: AbortSignal;
}

export const StopReason = {
  EndTurn: 'end_turn',
  ToolUse: 'tool_use',
  MaxTokens: 'max_tokens',
  StopSequence: 'stop_sequence',
  ContentFilter: 'content_filter',
  Other: 'other',
} as const;
export type StopReason = (typeof StopReason)[keyof typeof StopReason];

/**
 * Token counts of one call. `input_tokens` counts every prompt token, cached or not;
 * `cache_read_tokens` and `cache_write_tokens` say how many of them were read from or written to the
 * provider's prompt cache (ops/providers.md).
 */
export interface LlmUsage {
  readonly input_tokens: number;
  readonly output_tokens: number;
  readonly cache_read_tokens: number;
  readonly cache_write_tokens: number;
}

export interface LlmResult {
  readonly text: string;
  readonly tool_calls: readonly LlmToolCall[];
  readonly stop_reason: StopReason;
  /** The provider's own stop reason (`stop`, `tool_calls`, `end_turn`, ...). */
  readonly raw_stop_reason: string | null;
  readonly usage: LlmUsage;
  /**
   * True when the stream was cut before its usage frame and `usage` is our estimate (ops/providers.md
   * "Usage"); absent when the provider counted.
   */
  readonly usage_estimated?: boolean;
  /** The model that answered, as the provider named it (falls back to the configured model). */
  readonly model: string;
  /** Provider entry key that answered. */
  readonly provider: string;
  readonly started_at: string;
  readonly duration_ms: number;
}

/**
 * A call whose answer began (the provider sent at least one event) and then failed: the tokens it cost as far
 * as the wire let us know them, so they are counted although no result came (ops/providers.md "Usage").
 */
export interface UnfinishedCall {
  /** Provider entry key. */
  readonly provider: string;
  readonly model: string;
  readonly usage: LlmUsage;
  /** True when a count is ours (characters at four a token), not the provider's. */
  readonly usage_estimated: boolean;
}

/** What a streamed call yields while it runs. `index` orders tool calls within the answer. */
export type LlmDelta =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'tool_call_start'; readonly index: number; readonly id: string; readonly name: string }
  | { readonly type: 'tool_call_delta'; readonly index: number; readonly arguments: string }
  | { readonly type: 'tool_call_end'; readonly index: number };

/** A running call: iterate it for deltas, await `result()` for the outcome (either, or both). */
export interface LlmStream extends AsyncIterable<LlmDelta> {
  result(): Promise<LlmResult>;
}
