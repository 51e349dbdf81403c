/**
 * What every wire client offers the registry, and the pieces they share: the configured entry,
 * tool-call assembly, and the result's bookkeeping.
 */
import { withDeadline, type CallContext } from './http.js';
import { nodePost, type HttpPost } from './http-post.js';
import { LlmError } from './llm.errors.js';
import type { LlmDelta, LlmRequest, LlmResult, LlmToolCall, LlmUsage, UnfinishedCall } from './llm.types.js';

export interface ClientConfig {
  /** The entry key in `providers.llm`. */
  readonly name: string;
  readonly type: 'openai' | 'openai-compatible' | 'anthropic';
  readonly model: string;
  /** The base URL as a literal; a call may be handed another (the registry resolves `base_url` per call). */
  readonly baseUrl?: string | undefined;
  readonly timeoutMs: number;
  /** The transport (node:http on keep-alive connections unless a test injects another). */
  readonly post?: HttpPost;
  /** Wall clock in ms; `Date.now` unless a test injects one. */
  readonly now?: () => number;
}

export interface ProviderClient {
  readonly config: ClientConfig;
  /**
   * One streamed call with one key (`null`: send no credential, for keyless local servers). Deltas are
   * handed to `onDelta` as they arrive; the promise settles with the final result or a typed `LlmError`.
   * `baseUrl`: the base this call posts to (`config.baseUrl`, else the wire's default, when absent).
   */
  call(
    request: LlmRequest,
    apiKey: string | null,
    onDelta: (delta: LlmDelta) => void,
    baseUrl?: string,
  ): Promise<LlmResult>;
}

export const defaultMaxTokens = 4096;

/** What a client reads off the wire; `timedCall` adds the call's bookkeeping. */
export type Answer = Omit<LlmResult, 'provider' | 'started_at' | 'duration_ms'>;

/**
 * What a stream showed as it was read, so a call cut before its usage frame still counts what it cost
 * (ops/providers.md "Usage"). Counts the provider reported win; the rest are estimated.
 */
export class StreamSeen {
  /** Events read off the answer; none means the answer never began, and nothing is counted. */
  events = 0;
  model = '';
  /** Characters of text, tool names and arguments streamed. */
  outputChars = 0;
  /** Counts the provider reported (null: not yet). `input` includes cached prompt tokens. */
  input: number | null = null;
  output: number | null = null;
  cacheRead = 0;
  cacheWrite = 0;
  /** `promptChars`: the request body's length, what an input estimate is made from. */
  constructor(readonly promptChars: number) {}

  /** The usage as far as known, and whether any count in it is an estimate. */
  usage(): { usage: LlmUsage; estimated: boolean } {
    return {
      usage: {
        input_tokens: this.input ?? estimateTokens(this.promptChars),
        output_tokens: this.output ?? estimateTokens(this.outputChars),
        cache_read_tokens: this.cacheRead,
        cache_write_tokens: this.cacheWrite,
      },
      estimated: this.input === null || this.output === null,
    };
  }
}

/**
 * Tokens of `chars` characters of text or JSON, at the usual four characters a token for English and code
 * (an estimate for budgets, flagged wherever it is recorded; never a provider's count).
 */
const estimateTokens = (chars: number): number => Math.ceil(Math.max(0, chars) / 4);

/**
 * Runs `exchange` (the request and its answer) under the entry's whole-call deadline, then completes the
 * result: the model the server named (else the configured one), the entry's name, the start and the duration.
 * A failure after the answer began carries, as `unfinished`, what `seen` says the call cost.
 */
export async function timedCall(
  config: ClientConfig,
  request: LlmRequest,
  seen: StreamSeen,
  exchange: (ctx: CallContext, signal: AbortSignal) => Promise<Answer>,
): Promise<LlmResult> {
  const now = config.now ?? Date.now;
  const ctx: CallContext = {
    provider: config,
    timeoutMs: config.timeoutMs,
    signal: request.signal,
    post: config.post ?? nodePost,
    now,
  };
  const startedMs = now();
  let answer: Answer;
  try {
    answer = await withDeadline(ctx, (signal) => exchange(ctx, signal));
  } catch (error) {
    if (error instanceof LlmError && seen.events > 0) error.unfinished = unfinishedOf(config, seen);
    throw error;
  }
  return {
    ...answer,
    model: answer.model || config.model,
    provider: config.name,
    started_at: new Date(startedMs).toISOString(),
    duration_ms: Math.max(0, now() - startedMs),
  };
}

function unfinishedOf(config: ClientConfig, seen: StreamSeen): UnfinishedCall {
  const { usage, estimated } = seen.usage();
  return { provider: config.name, model: seen.model || config.model, usage, usage_estimated: estimated };
}

/** Accumulates one tool call's streamed pieces. */
export interface ToolCallDraft {
  id: string;
  name: string;
  args: string;
}

/** Parses the arguments a model produced; anything but a JSON object is kept raw and flagged. */
export function finishToolCall(draft: ToolCallDraft): LlmToolCall {
  const raw = draft.args;
  try {
    const parsed: unknown = JSON.parse(raw.trim() === '' ? '{}' : raw);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
      return {
        id: draft.id,
        name: draft.name,
        arguments: parsed as Record<string, unknown>,
        raw_arguments: raw,
        arguments_valid: true,
      };
    }
  } catch {
    // falls through: invalid arguments are the model's output, reported, not thrown
  }
  return { id: draft.id, name: draft.name, arguments: {}, raw_arguments: raw, arguments_valid: false };
}

/** A non-negative integer token count from an untyped wire value. */
export const tokens = (value: unknown): number =>
  typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
