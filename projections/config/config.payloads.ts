/**
 * The documents of the configuration read model, kept apart from its metadata so a node's memory follows
 * its configuration, not its history: the active revision's document is always held, a few others sit
 * in a small cache bounded by bytes and count, and anything else is read again from SVC_CONFIG by its
 * stream sequence (ops/config.md "Revision payloads").
 */

import { parsePayload } from './config.record.js';

/**
 * A document as the cache takes it: the JSON bytes it was stored as (parsed when first read), or an
 * already parsed value (a fold fed by hand).
 */
export type CachedPayload = { readonly raw: Uint8Array | null } | { readonly parsed: unknown };

/** Reads the payload stored at `seq` for revision `revisionId`; throws when the stream cannot answer. */
export type LoadPayload = (seq: number, revisionId: string) => Promise<CachedPayload>;

export interface PayloadCacheLimits {
  /** Bytes of stored JSON held besides the active document. */
  readonly maxBytes: number;
  /** Documents held besides the active one. */
  readonly maxEntries: number;
}

/** Room for the last few edits of a large document, so a diff or revert of a recent one reads no stream. */
export const defaultPayloadCacheLimits: PayloadCacheLimits = { maxBytes: 4 * 1024 * 1024, maxEntries: 16 };

interface Held {
  /** Bytes until first read for the active document; cached others stay bytes (their bound is honest). */
  value: CachedPayload;
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
  /** The last active document that was held, kept while the active one is not (see `standby()`). */
  private spare: { readonly id: string; readonly held: Held } | null = null;
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
  put(revisionId: string, value: CachedPayload, bytes: number, reloadable: boolean): void {
    const held: Held = { value, bytes, reloadable: reloadable && this.loader !== null };
    if (revisionId === this.pinnedId) {
      this.pinned = held;
      this.releaseSpare();
      this.evict();
      return;
    }
    this.drop(revisionId);
    this.lru.set(revisionId, held);
    this.lruBytes += bytes;
    this.evict();
  }

  /** The held payload, refreshing its recency; `undefined` when it is not held. */
  get(revisionId: string): { readonly payload: unknown } | undefined {
    if (revisionId === this.pinnedId) {
      if (!this.pinned) return undefined;
      // The active document is read all the time: parse it once.
      if (!('parsed' in this.pinned.value)) this.pinned.value = { parsed: opened(this.pinned.value) };
      return { payload: this.pinned.value.parsed };
    }
    const held = this.lru.get(revisionId);
    if (!held) return undefined;
    this.lru.delete(revisionId);
    this.lru.set(revisionId, held);
    return { payload: opened(held.value) };
  }

  /**
   * Makes `revisionId` the one document held whatever the bound (null: none). The previous active one
   * joins the cache as its newest entry: the next read is most likely a diff against it.
   */
  pin(revisionId: string | null): void {
    if (revisionId === this.pinnedId) return;
    const previous = this.pinnedId !== null && this.pinned ? { id: this.pinnedId, held: this.pinned } : null;
    this.pinnedId = revisionId;
    this.pinned = null;
    if (revisionId !== null && this.spare?.id === revisionId) {
      this.pinned = this.spare.held;
      this.spare = null;
    } else if (revisionId !== null) {
      const held = this.lru.get(revisionId);
      if (held) {
        this.drop(revisionId);
        this.pinned = held;
      }
    }
    if (previous) {
      // While the new active document is away, the one it replaces stays at hand to answer for it.
      this.releaseSpare();
      if (this.pinned) this.enter(previous.id, previous.held);
      else this.spare = previous;
    } else if (this.pinned) {
      this.releaseSpare();
    }
    this.evict();
  }

  /**
   * The previous active document while the active one is not held yet (its record still on the way, or
   * being read back), so a configured node keeps answering with the prior revision meanwhile.
   */
  standby(): { readonly revisionId: string; readonly payload: unknown } | undefined {
    if (this.pinned || !this.spare) return undefined;
    if (!('parsed' in this.spare.held.value))
      this.spare.held.value = { parsed: opened(this.spare.held.value) };
    return { revisionId: this.spare.id, payload: this.spare.held.value.parsed };
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
        .then((value) => {
          // A document left unread at replay has no size yet: what was read is what the cache counts.
          const size = bytes === 0 && 'raw' in value && value.raw !== null ? value.raw.byteLength : bytes;
          this.put(revisionId, value, size, true);
          return opened(value);
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

  private enter(revisionId: string, held: Held): void {
    this.drop(revisionId);
    this.lru.set(revisionId, held);
    this.lruBytes += held.bytes;
  }

  private releaseSpare(): void {
    if (!this.spare) return;
    this.enter(this.spare.id, this.spare.held);
    this.spare = null;
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

/**
 * The document of a held payload. Records are written by JSON.stringify, so bytes that do not parse mean a
 * damaged stream: they read as no document (a reader shows an empty company) rather than throw at every read.
 */
function opened(value: CachedPayload): unknown {
  if ('parsed' in value) return value.parsed;
  try {
    return parsePayload(value.raw);
  } catch {
    return null;
  }
}
