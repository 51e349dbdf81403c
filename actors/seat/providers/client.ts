/**
 * What every wire client offers the registry, and the pieces they share: the configured entry,
 * tool-call assembly, and the result's bookkeeping.
 */
import { withDeadline, type CallContext } from './http.js';
import { nodePost, type HttpPost } from './http-post.js';
import type { LlmDelta, LlmRequest, LlmResult, LlmToolCall } from './llm.types.js';

export interface ClientConfig {
  /** The entry key in `providers.llm`. */
  readonly name: string;
  readonly type: 'openai' | 'openai-compatible' | 'anthropic';
  readonly model: string;
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
   */
  call(request: LlmRequest, apiKey: string | null, onDelta: (delta: LlmDelta) => void): Promise<LlmResult>;
}

export const defaultMaxTokens = 4096;

/** What a client reads off the wire; `timedCall` adds the call's bookkeeping. */
export type Answer = Omit<LlmResult, 'provider' | 'started_at' | 'duration_ms'>;

/**
 * Runs `exchange` (the request and its answer) under the entry's whole-call deadline, then completes the
 * result: the model the server named (else the configured one), the entry's name, the start and the duration.
 */
export async function timedCall(
  config: ClientConfig,
  request: LlmRequest,
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
  const answer = await withDeadline(ctx, (signal) => exchange(ctx, signal));
  return {
    ...answer,
    model: answer.model || config.model,
    provider: config.name,
    started_at: new Date(startedMs).toISOString(),
    duration_ms: Math.max(0, now() - startedMs),
  };
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
