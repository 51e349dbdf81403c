/**
 * The LLM providers of this node: built from the company document, resolving a seat's chain (its
 * `llm` pin, else `providers.llm_order`), calling along the chain with fallback, and swapped in place
 * when a revision is applied (the `providers` subsystem). A call keeps the entry it started on, so
 * calls in flight finish on the old entry; entries that did not change keep their pools and cooldowns.
 */
import { newEvent } from '../../../bus/index.js';
import { isDeepStrictEqual } from 'node:util';
import type { Logger } from 'pino';
import {
  EventCategory,
  type Company,
  type CredentialPoolSnapshot,
  type EventRecord,
  type LlmProvider,
  readEmbeddings,
  type Resolver,
} from '../../../schema/index.js';
import type { SubsystemApplier } from '../../config/index.js';
import { anthropicClient } from './anthropic.client.js';
import { resolveBaseUrl } from './base-url.js';
import { streamFrom } from './call-stream.js';
import type { ClientConfig, ProviderClient } from './client.js';
import { embeddingsClient, type EmbeddingsClient } from './embeddings.client.js';
import { CredentialPool, type PoolTiming } from './credential-pool.js';
import type { HttpPost } from './http-post.js';
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
import { openaiClient } from './openai.client.js';
import { RetiredPools } from './retired-pools.js';
import { readProviderConfig, type ProviderConfig } from './provider-config.js';

/** Event types this registry publishes (ops/event-types.md). */
export const ProviderEventType = {
  Fallback: 'provider_fallback',
  Unavailable: 'llm_unavailable',
} as const;

/** Without `timeout_seconds`, a call (streaming included) may take this long. */
export const defaultTimeoutSeconds = 300;

export interface RegistryOptions {
  /** The company document to start from (null: no providers yet). */
  readonly document: Company | null;
  readonly resolve: Resolver;
  /** Receives `provider_fallback` and `llm_unavailable` records, ready to publish. */
  readonly onEvent?: (event: EventRecord) => void;
  readonly logger?: Logger;
  /** Wall clock in ms, for cooldowns and durations. */
  readonly now?: () => number;
  readonly post?: HttpPost;
  readonly timing?: Partial<PoolTiming>;
  /** `source` of published events, e.g. `node-0/providers`. */
  readonly source?: string;
}

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

interface Entry {
  readonly name: string;
  readonly spec: LlmProvider;
  readonly client: ProviderClient;
  readonly pool: CredentialPool;
}

interface State {
  readonly config: ProviderConfig;
  readonly entries: ReadonlyMap<string, Entry>;
  /**
   * The embeddings client read from the first document (null: no usable block); undefined until a document
   * came. Read at start only (spec apply order): later applies carry it over unchanged.
   */
  readonly embeddings: EmbeddingsClient | null | undefined;
  /** The `providers.embeddings` block that client was read from (absent: none); undefined with it. */
  readonly running: { readonly block: EmbeddingsBlock } | undefined;
}

type EmbeddingsBlock = NonNullable<Company['providers']>['embeddings'];

export class ProviderRegistry implements SubsystemApplier {
  readonly name = 'providers' as const;
  private state: State;
  /** The state before the last apply, restored by `rollback`. */
  private prior: State | null = null;
  /** The block last warned about (the running one until a change is): said once per change. */
  private told: { readonly block: EmbeddingsBlock } | undefined;
  /** Pools of entries replaced while calls ran on them, still counted by `snapshot`. */
  private readonly retired = new RetiredPools();

  constructor(private readonly opts: RegistryOptions) {
    this.state = this.build(opts.document, null);
  }

  /** The ordered chain of entry keys for a seat (a handle, or the seat itself). A pin is the whole chain. */
  resolve(seat: string | { readonly llm?: string | undefined }): string[] {
    const pin = typeof seat === 'string' ? this.state.config.pins.get(seat) : seat.llm;
    return pin ? [pin] : [...this.state.config.order];
  }

  /** Calls the first provider of `chain` that has a usable key, falling back along it. */
  call(chain: readonly string[], request: LlmRequest, caller: CallerInfo = {}): LlmStream {
    // Entries are taken now: an apply during the call does not move it to another entry.
    const entries = this.state.entries;
    return streamFrom(async (emit) => {
      const attempts: ChainAttempt[] = [];
      for (const [i, name] of chain.entries()) {
        const entry = entries.get(name);
        if (entry) caller.onAttempt?.({ provider: name, model: entry.spec.model });
        const outcome = entry
          ? await this.tryEntry(entry, request, emit, caller).catch((error: unknown) => {
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
        this.opts.logger?.warn(
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
          this.publish(
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
              retry_at: this.retryAt(entries, attempts),
            },
          );
        }
      }
      const error = new LlmUnavailableError(chain, attempts, this.retryAt(entries, attempts));
      this.publish(
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
  private async tryEntry(
    entry: Entry,
    request: LlmRequest,
    emit: Parameters<Parameters<typeof streamFrom>[0]>[0],
    caller: CallerInfo,
  ): Promise<{ result: LlmResult } | { failed: ChainAttempt }> {
    // Resolved at each call, as the keys are, before one is taken: a bad value sends nothing (no key leaves).
    const base =
      entry.spec.base_url === undefined ? null : resolveBaseUrl(entry.spec.base_url, this.opts.resolve);
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
        const onDelta = (delta: Parameters<typeof emit>[0]): void => {
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
        this.opts.logger?.warn(
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
  private retryAt(entries: ReadonlyMap<string, Entry>, attempts: readonly ChainAttempt[]): string | null {
    let earliest: number | null = null;
    for (const attempt of attempts) {
      if (attempt.reason !== 'keys_cooling') continue;
      const at = entries.get(attempt.provider)?.pool.usableAgainAt() ?? null;
      if (at !== null && (earliest === null || at < earliest)) earliest = at;
    }
    return earliest === null ? null : new Date(earliest).toISOString();
  }

  /**
   * The embeddings client of `providers.embeddings` as the first applied document gave it (ops/providers.md
   * "Embeddings"); null when none is usable or no document was applied yet.
   */
  embeddings(): EmbeddingsClient | null {
    return this.state.embeddings ?? null;
  }

  /** `providers` subsystem of an apply: entries swapped in place. */
  apply(next: Company): Promise<void> {
    this.prior = this.state;
    this.state = this.build(next, this.state);
    this.retired.retire(this.prior.entries.values(), this.state.entries.values());
    this.opts.logger?.info({ providers: [...this.state.entries.keys()] }, 'LLM providers applied');
    return Promise.resolve();
  }

  /**
   * The apply ended with `current` in force. The spec's apply order: an embeddings change is not swapped in
   * place, only warned about; said here, as a later subsystem's failure may still roll it back, and only
   * when the block differs from the one running (one put back leaves nothing for the restart).
   */
  settled(current: Company | null): void {
    const running = this.state.running;
    if (current === null || running === undefined) return;
    const applied = current.providers?.embeddings;
    if (isDeepStrictEqual(applied, (this.told ?? running).block)) return;
    this.told = { block: applied };
    if (isDeepStrictEqual(applied, running.block)) return;
    this.opts.logger?.warn(
      { event: 'restart_required', path: 'providers.embeddings' },
      'providers.embeddings changed; it is read at start only: personal memory keeps the embeddings it started with until a restart',
    );
  }

  rollback(): Promise<void> {
    if (this.prior) {
      const rolledBack = this.state;
      this.state = this.prior;
      this.retired.retire(rolledBack.entries.values(), this.state.entries.values());
    }
    this.prior = null;
    return Promise.resolve();
  }

  /**
   * Per entry, its keys by reference with their cooldowns (`GET /credential-pool`); a call still running on
   * an entry an apply replaced is counted where it started (ops/providers.md "Apply").
   */
  snapshot(): CredentialPoolSnapshot {
    return this.retired.snapshot(this.state.entries.values());
  }

  private build(document: Company | null, previous: State | null): State {
    const config = readProviderConfig(document);
    const entries = new Map<string, Entry>();
    for (const [name, spec] of config.llm) {
      const old = previous?.entries.get(name);
      if (old && isDeepStrictEqual(old.spec, spec)) {
        entries.set(name, old);
        continue;
      }
      const entry = this.entry(name, spec);
      if (old) entry.pool.carryFrom(old.pool);
      entries.set(name, entry);
    }
    if (previous?.running !== undefined)
      return { config, entries, embeddings: previous.embeddings, running: previous.running };
    if (document === null) return { config, entries, embeddings: undefined, running: undefined };
    const running = { block: document.providers?.embeddings };
    return { config, entries, embeddings: this.embeddingsOf(document), running };
  }

  private embeddingsOf(document: Company): EmbeddingsClient | null {
    const read = readEmbeddings(document.providers?.embeddings);
    if (read.kind !== 'usable') return null;
    // Names only: the key stays inside the client and is resolved per call.
    this.opts.logger?.info(
      { type: read.settings.type, model: read.settings.model, dimensions: read.settings.dimensions },
      'embeddings read at start: personal memory ranks by meaning',
    );
    return embeddingsClient({
      settings: read.settings,
      resolve: this.opts.resolve,
      ...(this.opts.post ? { post: this.opts.post } : {}),
      ...(this.opts.now ? { now: this.opts.now } : {}),
    });
  }

  private entry(name: string, spec: LlmProvider): Entry {
    const config: ClientConfig = {
      name,
      type: spec.type,
      model: spec.model,
      // base_url is resolved per call (tryEntry): the written value may hold `${VAR}` references.
      timeoutMs: (spec.timeout_seconds ?? defaultTimeoutSeconds) * 1000,
      ...(this.opts.post ? { post: this.opts.post } : {}),
      ...(this.opts.now ? { now: this.opts.now } : {}),
    };
    const client = spec.type === 'anthropic' ? anthropicClient(config) : openaiClient(config);
    const pool = new CredentialPool({
      provider: name,
      type: spec.type,
      model: spec.model,
      apiKeys: spec.api_keys,
      resolve: this.opts.resolve,
      ...(this.opts.now ? { now: this.opts.now } : {}),
      ...(this.opts.timing ? { timing: this.opts.timing } : {}),
    });
    return { name, spec, client, pool };
  }

  private publish(
    caller: CallerInfo,
    type: string,
    summary: string,
    payload: Record<string, unknown>,
    failed = false,
  ): void {
    if (!this.opts.onEvent) return;
    const record = newEvent({
      type,
      category: EventCategory.System,
      source: this.opts.source ?? 'providers',
      summary,
      actor: caller.seat ?? 'system',
      payload,
      failed,
      ...(caller.seat ? { agent_id: caller.seat } : {}),
      ...(caller.trace ? { trace: caller.trace } : {}),
      ...(this.opts.now ? { now: new Date(this.opts.now()) } : {}),
    });
    try {
      this.opts.onEvent(record);
    } catch (error) {
      this.opts.logger?.error({ err: error, type }, 'provider event handler failed');
    }
  }
}

export function createProviderRegistry(opts: RegistryOptions): ProviderRegistry {
  return new ProviderRegistry(opts);
}
