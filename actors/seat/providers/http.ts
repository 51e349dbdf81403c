/**
 * The HTTP part shared by every client: one POST under a whole-call deadline, the status mapped to a
 * typed error (the body discarded unread), and `Retry-After` parsed.
 */
import {
  LlmAbortedError,
  LlmAuthError,
  LlmError,
  LlmMalformedStreamError,
  LlmNetworkError,
  LlmRateLimitedError,
  LlmRefusedError,
  LlmServerError,
  LlmTimeoutError,
  type ProviderName,
} from './llm.errors.js';
import type { HttpAnswer, HttpPost } from './http-post.js';

export interface CallContext {
  readonly provider: ProviderName;
  /** Whole call: connect, headers and the last byte of the stream. */
  readonly timeoutMs: number;
  readonly signal?: AbortSignal | undefined;
  readonly post: HttpPost;
  /** Wall clock in ms (Retry-After dates are compared with it). */
  readonly now: () => number;
}

/**
 * Runs `work` with a signal that aborts at the deadline or when the caller aborts, and turns whatever
 * escapes into a typed `LlmError`.
 */
export async function withDeadline<T>(
  ctx: CallContext,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, ctx.timeoutMs);
  const onAbort = (): void => controller.abort();
  if (ctx.signal?.aborted) controller.abort();
  ctx.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    return await work(controller.signal);
  } catch (error) {
    if (timedOut) throw new LlmTimeoutError(ctx.provider, ctx.timeoutMs);
    if (ctx.signal?.aborted) throw new LlmAbortedError(ctx.provider);
    if (error instanceof LlmError) throw error;
    throw new LlmNetworkError(ctx.provider, error);
  } finally {
    clearTimeout(timer);
    ctx.signal?.removeEventListener('abort', onAbort);
  }
}

/** A body already serialized as JSON text: sent as it is. */
export class JsonText {
  constructor(readonly text: string) {}
}

/**
 * POSTs JSON (a value, or `JsonText`) and returns the response when it is a 2xx; otherwise throws the
 * status's typed error.
 */
export async function postJson(
  ctx: CallContext,
  signal: AbortSignal,
  url: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<HttpAnswer> {
  const answer = await ctx.post(url, {
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
    body: body instanceof JsonText ? body.text : JSON.stringify(body),
    signal,
  });
  if (answer.status >= 200 && answer.status < 300) return capped(ctx, answer);
  // The body is dropped unread: it may quote the request or the key.
  answer.discard();
  throw statusError(ctx, answer);
}

/**
 * The most bytes an answer may have. A model's longest answers (128k output tokens) stream in about 40 MB of
 * events, and 256 vectors of 8192 numbers are about as much JSON; a server streaming without end would
 * otherwise hold memory until the whole-call deadline (300 s by default).
 */
export const maxAnswerBytes = 64 * 1024 * 1024;

/** `answer` whose body fails as malformed once it passes `maxAnswerBytes`. */
function capped(ctx: CallContext, answer: HttpAnswer): HttpAnswer {
  async function* body(): AsyncGenerator<Uint8Array> {
    let seen = 0;
    for await (const chunk of answer.body) {
      seen += chunk.byteLength;
      if (seen > maxAnswerBytes) {
        // Destroyed, not drained: the rest may never end.
        answer.discard();
        throw new LlmMalformedStreamError(
          ctx.provider,
          `the answer is larger than ${maxAnswerBytes / 1024 / 1024} MiB`,
        );
      }
      yield chunk;
    }
  }
  const stream = body();
  return {
    status: answer.status,
    header: (name) => answer.header(name),
    body: stream,
    async text() {
      const chunks: Uint8Array[] = [];
      for await (const chunk of stream) chunks.push(chunk);
      return Buffer.concat(chunks).toString('utf8');
    },
    discard: () => answer.discard(),
  };
}

export function statusError(ctx: CallContext, answer: Pick<HttpAnswer, 'status' | 'header'>): LlmError {
  const { status } = answer;
  if (status === 429) {
    return new LlmRateLimitedError(ctx.provider, status, retryAfterMs(answer.header, ctx.now()));
  }
  if (status === 401 || status === 403) return new LlmAuthError(ctx.provider, status);
  if (status >= 500) return new LlmServerError(ctx.provider, status);
  return new LlmRefusedError(ctx.provider, status);
}

/**
 * `Retry-After` as delta-seconds or an HTTP date (RFC 9110 §10.2.3), or OpenAI's `retry-after-ms`;
 * null when absent or unreadable.
 */
export function retryAfterMs(header: (name: string) => string | null, nowMs: number): number | null {
  // Only a wait ahead counts: 0, a past date or a number Date.parse happens to read as a year (`-5`) is
  // no usable value, and the caller's default applies (a zero cooldown would retry the same key at once).
  const ahead = (waitMs: number): number | null => (waitMs > 0 ? Math.ceil(waitMs) : null);
  const ms = header('retry-after-ms')?.trim();
  if (ms && /^\d+(\.\d+)?$/.test(ms)) return ahead(Number(ms)) ?? fromRetryAfter();
  return fromRetryAfter();

  function fromRetryAfter(): number | null {
    const value = header('retry-after')?.trim();
    if (!value) return null;
    if (/^\d+(\.\d+)?$/.test(value)) return ahead(Number(value) * 1000);
    // An HTTP date names a weekday or a month; a bare signed number is not one.
    if (!/[A-Za-z]/.test(value)) return null;
    const at = Date.parse(value);
    return Number.isNaN(at) ? null : ahead(at - nowMs);
  }
}

/** Joins a base URL and a path without doubling or dropping the slash. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}
