/**
 * Typed failures of an LLM call. A message names the provider entry, its type, the HTTP status and
 * the kind of failure, and nothing else: a provider's response body may echo the prompt or a key,
 * so it is never quoted, and no parser error (which quotes its input) is kept as a cause.
 */
import type { UnfinishedCall } from './llm.types.js';

export const LlmErrorKind = {
  Timeout: 'timeout',
  RateLimited: 'rate_limited',
  AuthRefused: 'auth_refused',
  ServerError: 'server_error',
  /** Any other 4xx: the provider refused this request. */
  Refused: 'refused',
  MalformedStream: 'malformed_stream',
  Network: 'network',
  Aborted: 'aborted',
  /** `base_url` is not an http(s) URL naming a host once its `${VAR}` references are resolved: nothing sent. */
  InvalidBaseUrl: 'invalid_base_url',
} as const;
export type LlmErrorKind = (typeof LlmErrorKind)[keyof typeof LlmErrorKind];

const phrases: Record<LlmErrorKind, string> = {
  timeout: 'no complete answer within the timeout',
  rate_limited: 'rate limited',
  auth_refused: 'credential refused',
  server_error: 'server error',
  refused: 'request refused',
  malformed_stream: 'malformed response stream',
  network: 'network failure',
  aborted: 'call aborted by the caller',
  invalid_base_url: 'base_url is not an http(s) URL naming a host',
};

/** Who was called: the entry key in `providers.llm` and its type. */
export interface ProviderName {
  readonly name: string;
  readonly type: string;
  /** What the message calls it; default `LLM provider` (the embeddings client says `embeddings provider`). */
  readonly what?: string;
}

export class LlmError extends Error {
  override name = 'LlmError';
  readonly provider: string;
  readonly providerType: string;
  readonly kind: LlmErrorKind;
  readonly status: number | null;
  /** Set when the failure came after the answer began: what the call cost as far as it is known. */
  unfinished: UnfinishedCall | null = null;
  /**
   * Set by the provider registry when this failure ended a chain's call (its output had streamed, so no
   * fallback followed): every provider the chain tried, in order, each with its outcome, this one last —
   * as `LlmUnavailableError.attempts` lists them for a chain that failed before any output.
   */
  attempts: readonly ChainAttempt[] | null = null;

  constructor(
    provider: ProviderName,
    kind: LlmErrorKind,
    opts: { status?: number | null; detail?: string; cause?: unknown } = {},
  ) {
    const status = opts.status ?? null;
    const where = status === null ? '' : ` (HTTP ${status})`;
    const detail = opts.detail ? `: ${opts.detail}` : '';
    super(
      `${provider.what ?? 'LLM provider'} "${provider.name}" (${provider.type}): ${phrases[kind]}${where}${detail}`,
      {
        cause: opts.cause,
      },
    );
    this.provider = provider.name;
    this.providerType = provider.type;
    this.kind = kind;
    this.status = status;
  }
}

export class LlmTimeoutError extends LlmError {
  override name = 'LlmTimeoutError';
  constructor(provider: ProviderName, timeoutMs: number) {
    super(provider, LlmErrorKind.Timeout, { detail: `${timeoutMs / 1000} s` });
  }
}

export class LlmRateLimitedError extends LlmError {
  override name = 'LlmRateLimitedError';
  /** From `Retry-After`; null when the provider gave none. */
  readonly retryAfterMs: number | null;
  constructor(provider: ProviderName, status: number | null, retryAfterMs: number | null) {
    super(provider, LlmErrorKind.RateLimited, { status });
    this.retryAfterMs = retryAfterMs;
  }
}

export class LlmAuthError extends LlmError {
  override name = 'LlmAuthError';
  constructor(provider: ProviderName, status: number) {
    super(provider, LlmErrorKind.AuthRefused, { status });
  }
}

export class LlmServerError extends LlmError {
  override name = 'LlmServerError';
  constructor(provider: ProviderName, status: number | null, detail?: string) {
    super(provider, LlmErrorKind.ServerError, { status, ...(detail ? { detail } : {}) });
  }
}

export class LlmRefusedError extends LlmError {
  override name = 'LlmRefusedError';
  constructor(provider: ProviderName, status: number) {
    super(provider, LlmErrorKind.Refused, { status });
  }
}

export class LlmMalformedStreamError extends LlmError {
  override name = 'LlmMalformedStreamError';
  /** `detail` is our own description of what was wrong (never the offending text). */
  constructor(provider: ProviderName, detail: string) {
    super(provider, LlmErrorKind.MalformedStream, { detail });
  }
}

export class LlmNetworkError extends LlmError {
  override name = 'LlmNetworkError';
  constructor(provider: ProviderName, cause: unknown) {
    // Only the system error code is kept (ECONNREFUSED, ECONNRESET...): it carries no payload.
    super(provider, LlmErrorKind.Network, { detail: networkCode(cause) });
  }
}

export class LlmAbortedError extends LlmError {
  override name = 'LlmAbortedError';
  constructor(provider: ProviderName) {
    super(provider, LlmErrorKind.Aborted);
  }
}

/** One provider's failure inside a chain, as reported by `LlmUnavailableError` and events. */
export interface ChainAttempt {
  readonly provider: string;
  /**
   * An `LlmErrorKind` (`invalid_base_url` included: the resolved `base_url` names no http(s) host, so nothing
   * was sent), `keys_cooling` (every key cooling) or `no_key` (no key resolves).
   */
  readonly reason: string;
  readonly status: number | null;
  /**
   * With `no_key`: the variables (or `api_keys[i]` entries) that resolve to nothing; with `invalid_base_url`, the
   * variables of `base_url` that do. Names only.
   */
  readonly unresolved?: readonly string[];
}

const attemptText = (a: ChainAttempt): string =>
  `${a.provider}: ${a.reason}` +
  (a.unresolved?.length
    ? ` (${a.unresolved.map((ref) => (ref.startsWith('api_keys[') ? ref : `\${${ref}}`)).join(', ')} resolves to nothing)`
    : '') +
  (a.status ? ` (HTTP ${a.status})` : '');

/** Every provider of the chain failed or had no usable key. */
export class LlmUnavailableError extends Error {
  override name = 'LlmUnavailableError';
  readonly attempts: readonly ChainAttempt[];
  /**
   * When the first key of the chain stops cooling (RFC 3339 UTC): the earliest a retry can find one.
   * Null when no failure was a cooldown (no provider, no key resolves, errors that waiting does not cure).
   */
  readonly retryAt: string | null;
  constructor(chain: readonly string[], attempts: readonly ChainAttempt[], retryAt: string | null = null) {
    const tried = attempts.map(attemptText);
    super(
      chain.length === 0
        ? 'no LLM provider is configured for this seat'
        : `every LLM provider in the chain failed (${tried.join('; ')})`,
    );
    this.attempts = attempts;
    this.retryAt = retryAt;
  }
}

function networkCode(cause: unknown): string {
  let current: unknown = cause;
  for (let depth = 0; depth < 4 && current instanceof Error; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Z_]+$/.test(code)) return code;
    current = current.cause;
  }
  return 'connection failed';
}
