/**
 * The LLM providers of this node: built from the company document, resolving a seat's chain (its
 * `llm` pin, else `providers.llm_order`), calling along the chain with fallback (call-chain.ts), and swapped
 * in place when a revision is applied (the `providers` subsystem). A call keeps the entry it started on, so
 * calls in flight finish on the old entry; entries that did not change keep their pools and cooldowns
 * (provider-entries.ts).
 */
import { isDeepStrictEqual } from 'node:util';
import type { Logger } from 'pino';
import type { Company, CredentialPoolSnapshot, EventRecord, Resolver } from '../../../schema/index.js';
import type { SubsystemApplier } from '../../config/index.js';
import { callChain, type CallerInfo } from './call-chain.js';
import type { EmbeddingsClient } from './embeddings.client.js';
import type { PoolTiming } from './credential-pool.js';
import type { HttpPost } from './http-post.js';
import type { LlmRequest, LlmStream } from './llm.types.js';
import { buildState, type EmbeddingsBlock, type State } from './provider-entries.js';
import { RetiredPools } from './retired-pools.js';

export type { CallerInfo } from './call-chain.js';

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
    this.state = buildState(opts.document, null, opts);
  }

  /** The ordered chain of entry keys for a seat (a handle, or the seat itself). A pin is the whole chain. */
  resolve(seat: string | { readonly llm?: string | undefined }): string[] {
    const pin = typeof seat === 'string' ? this.state.config.pins.get(seat) : seat.llm;
    return pin ? [pin] : [...this.state.config.order];
  }

  /** Calls the first provider of `chain` that has a usable key, falling back along it. */
  call(chain: readonly string[], request: LlmRequest, caller: CallerInfo = {}): LlmStream {
    // Entries are taken now: an apply during the call does not move it to another entry.
    return callChain(this.state.entries, chain, request, caller, this.opts);
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
    this.state = buildState(next, this.state, this.opts);
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
}

export function createProviderRegistry(opts: RegistryOptions): ProviderRegistry {
  return new ProviderRegistry(opts);
}
