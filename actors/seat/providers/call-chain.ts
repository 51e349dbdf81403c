/**
 * One LLM call along a chain of provider entries: each entry's keys are tried while refusals cool them, then
 * the call falls back to the next entry, publishing `provider_fallback` at each step and `llm_unavailable`
 * when the chain is exhausted. Only times and provider names leave the pools, never keys.
 */
import { newEvent } from '../../../bus/index.js';
import type { Logger } from 'pino';
import { EventCategory, ReservedActor, type EventRecord, type Resolver } from '../../../schema/index.js';
import { resolveBaseUrl } from './base-url.js';
import { streamFrom } from './call-stream.js';
import {
  LlmAbortedError,
  LlmAuthError,
  LlmError,
  LlmErrorKind,
  LlmRateLimitedError,
  LlmUnavailableError,
  type ChainAttempt,
} from './llm.errors.js';
import type { LlmRequest, LlmResult, LlmStream, UnfinishedCall } from './llm.types.js';
import type { Entry } from './provider-entries.js';

/** Event types a chain call publishes (ops/event-types.md). */
const ProviderEventType = {
  Fallback: 'provider_fallback',
  Unavailable: 'llm_unavailable',
} as const;

/** Who is calling, for events and logs. */
export interface CallerInfo {
  /** The seat's handle. */
  readonly seat?: string;
  readonly trace?: { readonly trace_id: string; readonly parent_span_id: string | null };
  /**
   * Told of every provider whose answer began and then failed (the call falling back or ending there), with
   * what it cost as far as the wire said, so the caller counts spend no result carries.
   */
  readonly onUnfinished?: (call: UnfinishedCall) => void;
  /** Told of each configured entry as the call turns to it (the first, then each fallback), for live views. */
  readonly onAttempt?: (attempt: { readonly provider: string; readonly model: string }) => void;
}

/** What a chain call needs from the registry's options. */
export interface ChainDeps {
  readonly resolve: Resolver;
  readonly onEvent?: ((event: EventRecord) => void) | undefined;
  readonly logger?: Logger | undefined;
  readonly now?: (() => number) | undefined;
  readonly source?: string | undefined;
}

type Emit = Parameters<Parameters<typeof streamFrom>[0]>[0];

/** Calls the first entry of `chain` (looked up in `entries`) that has a usable key, falling back along it. */
export function callChain(
  entries: ReadonlyMap<string, Entry>,
  chain: readonly string[],
  request: LlmRequest,
  caller: CallerInfo,
  deps: ChainDeps,
): LlmStream {
  return streamFrom(async (emit) => {
    const attempts: ChainAttempt[] = [];
    for (const [i, name] of chain.entries()) {
      const entry = entries.get(name);
      if (entry) caller.onAttempt?.({ provider: name, model: entry.spec.model });
      const outcome = entry
        ? await tryEntry(entry, request, emit, caller, deps).catch((error: unknown) => {
            // A failure after output ends the chain here: it names every provider tried, as a chain
            // that failed before any output does.
            if (error instanceof LlmError && !(error instanceof LlmAbortedError))
              error.attempts = [...attempts, { provider: name, reason: error.kind, status: error.status }];
            throw error;
          })
        : { failed: { provider: name, reason: 'not_configured', status: null } };
      if ('result' in outcome) return outcome.result;
      attempts.push(outcome.failed);
      const next = chain[i + 1];
      deps.logger?.warn(
        {
          provider: name,
          reason: outcome.failed.reason,
          status: outcome.failed.status,
          next: next ?? null,
          seat: caller.seat,
        },
        next ? 'LLM provider unavailable; falling back' : 'LLM provider unavailable; chain exhausted',
      );
      if (next !== undefined) {
        publish(
          deps,
          caller,
          ProviderEventType.Fallback,
          `LLM provider ${name} unavailable (${outcome.failed.reason}); trying ${next}`,
          {
            from: name,
            to: next,
            reason: outcome.failed.reason,
            status: outcome.failed.status,
            chain: [...chain],
            // When the entry passed over (and any before it) takes calls again, as on llm_unavailable.
            retry_at: retryAt(entries, attempts),
          },
        );
      }
    }
    const error = new LlmUnavailableError(chain, attempts, retryAt(entries, attempts));
    publish(
      deps,
      caller,
      ProviderEventType.Unavailable,
      error.message,
      { chain: [...chain], attempts, retry_at: error.retryAt },
      true,
    );
    throw error;
  });
}

/**
 * One provider: keys are tried while refusals (429, 401/403) cool them, each key at most once.
 * Any failure after output has streamed to the caller ends the call (its text cannot be unsaid).
 */
async function tryEntry(
  entry: Entry,
  request: LlmRequest,
  emit: Emit,
  caller: CallerInfo,
  deps: ChainDeps,
): Promise<{ result: LlmResult } | { failed: ChainAttempt }> {
  // Resolved at each call, as the keys are, before one is taken: a bad value sends nothing (no key leaves).
  const base = entry.spec.base_url === undefined ? null : resolveBaseUrl(entry.spec.base_url, deps.resolve);
  if (base !== null && !base.ok) {
    const unresolved = base.unresolved.length > 0 ? { unresolved: base.unresolved } : {};
    return {
      failed: { provider: entry.name, reason: LlmErrorKind.InvalidBaseUrl, status: null, ...unresolved },
    };
  }
  let last: ChainAttempt | null = null;
  for (let attempt = 0; attempt < entry.pool.size; attempt += 1) {
    const acquired = entry.pool.acquire();
    if (!acquired.ok) {
      const unresolved = acquired.reason === 'no_key' ? { unresolved: acquired.unresolved } : {};
      return {
        failed: {
          provider: entry.name,
          reason: acquired.reason,
          status: last?.status ?? null,
          ...unresolved,
        },
      };
    }
    const { lease } = acquired;
    let streamed = false;
    try {
      const onDelta = (delta: Parameters<Emit>[0]): void => {
        streamed = true;
        emit(delta);
      };
      const result = await entry.client.call(request, lease.value, onDelta, base?.url);
      lease.succeeded();
      return { result };
    } catch (error) {
      if (error instanceof LlmRateLimitedError) lease.rateLimited(error.retryAfterMs);
      else if (error instanceof LlmAuthError) lease.authRefused();
      else lease.released();
      if (error instanceof LlmError && error.unfinished) caller.onUnfinished?.(error.unfinished);
      if (!(error instanceof LlmError) || error instanceof LlmAbortedError || streamed) throw error;
      deps.logger?.warn(
        { provider: entry.name, key: lease.ref, kind: error.kind, status: error.status },
        'LLM call failed',
      );
      last = { provider: entry.name, reason: error.kind, status: error.status };
      const rotate = error instanceof LlmRateLimitedError || error instanceof LlmAuthError;
      if (!rotate) return { failed: last };
    }
  }
  return { failed: { provider: entry.name, reason: 'keys_cooling', status: last?.status ?? null } };
}

/**
 * The earliest instant a provider that failed for cooling keys has one usable again (by the
 * registry's clock); null when no failure was a cooldown. Only times leave the pools, never keys.
 */
function retryAt(entries: ReadonlyMap<string, Entry>, attempts: readonly ChainAttempt[]): string | null {
  let earliest: number | null = null;
  for (const attempt of attempts) {
    if (attempt.reason !== 'keys_cooling') continue;
    const at = entries.get(attempt.provider)?.pool.usableAgainAt() ?? null;
    if (at !== null && (earliest === null || at < earliest)) earliest = at;
  }
  return earliest === null ? null : new Date(earliest).toISOString();
}

function publish(
  deps: ChainDeps,
  caller: CallerInfo,
  type: string,
  summary: string,
  payload: Record<string, unknown>,
  failed = false,
): void {
  if (!deps.onEvent) return;
  const record = newEvent({
    type,
    category: EventCategory.System,
    source: deps.source ?? 'providers',
    summary,
    actor: caller.seat ?? ReservedActor.System,
    payload,
    failed,
    ...(caller.seat ? { agent_id: caller.seat } : {}),
    ...(caller.trace ? { trace: caller.trace } : {}),
    ...(deps.now ? { now: new Date(deps.now()) } : {}),
  });
  try {
    deps.onEvent(record);
  } catch (error) {
    deps.logger?.error({ err: error, type }, 'provider event handler failed');
  }
}
