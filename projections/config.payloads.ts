/**
 * The documents of the configuration read model, kept apart from its metadata so a node's memory follows
 * its configuration, not its history: the active revision's document is always held, a few others sit
 * in a small cache bounded by bytes and count, and anything else is read again from SVC_CONFIG by its
 * stream sequence (ops/config.md "Revision payloads").
 */

/** Reads the payload stored at `seq` for revision `revisionId`; throws when the stream cannot answer. */
export type LoadPayload = (seq: number, revisionId: string) => Promise<unknown>;

export interface PayloadCacheLimits {
  /** Bytes of stored JSON held besides the active document. */
  readonly maxBytes: number;
  /** Documents held besides the active one. */
  readonly maxEntries: number;
}

/** Room for the last few edits of a large document, so a diff or revert of a recent one reads no stream. */
export const defaultPayloadCacheLimits: PayloadCacheLimits = { maxBytes: 4 * 1024 * 1024, maxEntries: 16 };

interface Held {
  readonly payload: unknown;
  readonly bytes: number;
  /** False when the payload has no stream sequence to be read again from (kept until it is pinned away). */
  readonly reloadable: boolean;
}

export interface PayloadCacheStats {
  /** Documents held besides the active one. */
  readonly entries: number;
  readonly bytes: number;
  readonly active: {
    readonly revision_id: string;
    readonly bytes: number;
    readonly resident: boolean;
  } | null;
  /** Reads that went to the stream. */
  readonly loads: number;
}

/** A least-recently-used cache of documents by revision id, with the active one pinned outside the bound. */
export class PayloadCache {
  /** Map order is recency order: the first entry is evicted first. */
  private readonly lru = new Map<string, Held>();
  private lruBytes = 0;
  private pinnedId: string | null = null;
  private pinned: Held | null = null;
  private readonly inFlight = new Map<string, Promise<unknown>>();
  private loadCount = 0;

  constructor(
    private readonly limits: PayloadCacheLimits = defaultPayloadCacheLimits,
    private readonly loader: LoadPayload | null = null,
  ) {}

  /** Whether a payload that is not held can be read again. */
  get canLoad(): boolean {
    return this.loader !== null;
  }

  /** Takes a payload just read from the stream (a new revision, or one loaded on demand). */
  put(revisionId: string, payload: unknown, bytes: number, reloadable: boolean): void {
    const held: Held = { payload, bytes, reloadable: reloadable && this.loader !== null };
    if (revisionId === this.pinnedId) {
      this.pinned = held;
      return;
    }
    this.drop(revisionId);
    this.lru.set(revisionId, held);
    this.lruBytes += bytes;
    this.evict();
  }

  /** The held payload, refreshing its recency; `undefined` when it is not held. */
  get(revisionId: string): { readonly payload: unknown } | undefined {
    if (revisionId === this.pinnedId) return this.pinned ?? undefined;
    const held = this.lru.get(revisionId);
    if (!held) return undefined;
    this.lru.delete(revisionId);
    this.lru.set(revisionId, held);
    return held;
  }

  /**
   * Makes `revisionId` the one document held whatever the bound (null: none). The previous active one
   * joins the cache as its newest entry: the next read is most likely a diff against it.
   */
  pin(revisionId: string | null): void {
    if (revisionId === this.pinnedId) return;
    const previousId = this.pinnedId;
    const previous = this.pinned;
    this.pinnedId = revisionId;
    this.pinned = null;
    if (revisionId !== null) {
      const held = this.lru.get(revisionId);
      if (held) {
        this.drop(revisionId);
        this.pinned = held;
      }
    }
    if (previousId !== null && previous) {
      this.lru.set(previousId, previous);
      this.lruBytes += previous.bytes;
    }
    this.evict();
  }

  /** The pinned revision, and whether its payload is held (false while it waits on a load or its record). */
  active(): { readonly revisionId: string; readonly resident: boolean } | null {
    return this.pinnedId === null ? null : { revisionId: this.pinnedId, resident: this.pinned !== null };
  }

  /** Reads a payload through the cache; concurrent reads of one revision share one stream read. */
  async load(revisionId: string, seq: number, bytes: number): Promise<unknown> {
    const held = this.get(revisionId);
    if (held) return held.payload;
    if (!this.loader)
      throw new Error(`revision ${revisionId} is not held and this read model has no stream to read it from`);
    let pending = this.inFlight.get(revisionId);
    if (!pending) {
      const loader = this.loader;
      this.loadCount += 1;
      pending = loader(seq, revisionId)
        .then((payload) => {
          this.put(revisionId, payload, bytes, true);
          return payload;
        })
        .finally(() => this.inFlight.delete(revisionId));
      this.inFlight.set(revisionId, pending);
    }
    return pending;
  }

  stats(): PayloadCacheStats {
    return {
      entries: this.lru.size,
      bytes: this.lruBytes,
      active:
        this.pinnedId === null
          ? null
          : { revision_id: this.pinnedId, bytes: this.pinned?.bytes ?? 0, resident: this.pinned !== null },
      loads: this.loadCount,
    };
  }

  private drop(revisionId: string): void {
    const held = this.lru.get(revisionId);
    if (!held) return;
    this.lru.delete(revisionId);
    this.lruBytes -= held.bytes;
  }

  /** Oldest first, only what the stream can give back: a payload with no sequence is never lost. */
  private evict(): void {
    if (this.lru.size <= this.limits.maxEntries && this.lruBytes <= this.limits.maxBytes) return;
    for (const [id, held] of this.lru) {
      if (this.lru.size <= this.limits.maxEntries && this.lruBytes <= this.limits.maxBytes) return;
      if (!held.reloadable) continue;
      this.lru.delete(id);
      this.lruBytes -= held.bytes;
    }
  }
}
