/**
 * The configuration read model: every stored revision's metadata and the active pointer, rebuilt from
 * SVC_CONFIG. Documents live in a payload cache beside it (config.payloads.ts): the active one always,
 * others read again from the stream by sequence. Reads of `/config*` and `config_audit` are answered from here.
 */
import { ActivePointer, RevisionRecord, type RevisionMeta } from '../../schema/index.js';
import { clampInt } from '../query/params.js';
import { PayloadCache, type LoadPayload, type PayloadCacheLimits } from './config.payloads.js';

/** A stored revision without its document: what every listing answers, plus where the document lies. */
export type StoredRevision = Omit<RevisionRecord, 'payload'> & {
  /** Its record's SVC_CONFIG sequence; null when it came from elsewhere (then its payload stays held). */
  readonly seq: number | null;
  /** Size of the stored record in bytes (what the cache counts; 0 until read when its document was left unread). */
  readonly bytes: number;
};

/** Owned by one runner and updated in place: replaying thousands of revisions stays linear. */
export interface ConfigState {
  /** Revisions in stream order (oldest first). */
  readonly order: string[];
  readonly revisions: Map<string, StoredRevision>;
  /** The documents: the active one pinned, a bounded few others, the rest read on demand. */
  readonly payloads: PayloadCache;
  /** The winner with the highest epoch, or null before the first activation. */
  active: ActivePointer | null;
  /** Each epoch's winner; `logged` once it comes from the stream (a pointer read only fills a gap). */
  readonly epochs: Map<number, { readonly pointer: ActivePointer; readonly logged: boolean }>;
  /** Every revision that was ever active, with the epoch it won and when. */
  readonly activated: Map<string, ActivePointer>;
}

/** `load` reads an evicted document back from the stream; without it every document stays held. */
export function emptyConfigState(
  opts: { readonly load?: LoadPayload; readonly cache?: PayloadCacheLimits } = {},
): ConfigState {
  return {
    order: [],
    revisions: new Map(),
    payloads: new PayloadCache(opts.cache, opts.load ?? null),
    active: null,
    epochs: new Map(),
    activated: new Map(),
  };
}

/**
 * What the projection consumes, already decoded: a stored revision and an activation announcement come
 * from SVC_CONFIG in stream order; `pointer` is a read of the active pointer in the coordination store,
 * which may be ahead of the stream (its announcement in flight) or the only trace of an activation whose
 * writer stopped before announcing it.
 */
export type ConfigFact =
  | {
      readonly kind: 'stored';
      readonly record: unknown;
      /** Where the record lies in SVC_CONFIG and its size, so its document can be dropped and read again. */
      readonly seq?: number;
      readonly bytes?: number;
      /** The payload as stored JSON bytes when `record` came without it (split off unparsed; null: none). */
      readonly payload?: Uint8Array | null;
      /** The document was left unread (`record` is the metadata alone): it is read by `seq` on demand. */
      readonly unread?: boolean;
    }
  | { readonly kind: 'activated'; readonly pointer: unknown }
  | { readonly kind: 'pointer'; readonly pointer: unknown };

/**
 * Folds one fact into the state (in place). Malformed facts are skipped (a read model never refuses history).
 * Activation follows log order (DESIGN.md "Agreement comes from log order"): for each epoch the first
 * announcement in stream order wins, and the active revision is the winner with the highest epoch. Writers
 * announce concurrently, so epochs land out of order; none is dropped for not being newer, which makes the
 * result independent of arrival order: a live follower and a replay from zero agree.
 */
export function applyConfigFact(state: ConfigState, fact: ConfigFact): ConfigState {
  if (fact.kind === 'stored') {
    // Split-off bytes stand in for the payload member; a record that had none stays malformed.
    const raw = fact.payload instanceof Uint8Array ? fact.payload : null;
    const unread = fact.unread === true && fact.seq !== undefined && isMap(fact.record);
    const split = (raw !== null || unread) && isMap(fact.record);
    const parsed = RevisionRecord.safeParse(split ? { ...fact.record, payload: null } : fact.record);
    if (!parsed.success || state.revisions.has(parsed.data.revision_id)) return state;
    const { payload, ...head } = parsed.data;
    const bytes = fact.bytes ?? (unread ? 0 : jsonBytes(parsed.data));
    state.revisions.set(head.revision_id, { ...head, seq: fact.seq ?? null, bytes });
    state.order.push(head.revision_id);
    if (unread) return state;
    const value = split ? { raw } : { parsed: payload };
    state.payloads.put(head.revision_id, value, bytes, fact.seq !== undefined);
    return state;
  }
  const parsed = ActivePointer.safeParse(fact.pointer);
  if (!parsed.success) return state;
  const claim = parsed.data;
  const logged = fact.kind === 'activated';
  const held = state.epochs.get(claim.epoch);
  // The stream's first claim of an epoch is final; a pointer read never overrides what was announced.
  if (held && (held.logged || !logged)) return state;
  if (held && held.pointer.revision_id !== claim.revision_id) {
    state.activated.delete(held.pointer.revision_id);
  }
  state.epochs.set(claim.epoch, { pointer: claim, logged });
  state.activated.set(claim.revision_id, claim);
  if (!state.active || claim.epoch >= state.active.epoch) state.active = claim;
  state.payloads.pin(state.active.revision_id);
  return state;
}

const isMap = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** Size of a record that came without one (a fold fed by hand); only the cache's accounting uses it. */
function jsonBytes(record: RevisionRecord): number {
  try {
    return Buffer.byteLength(JSON.stringify(record));
  } catch {
    return 0;
  }
}

/** Every activation, oldest epoch first: which revision won each epoch, and when. */
export function activationHistory(state: ConfigState): ActivePointer[] {
  return [...state.epochs.values()].map((held) => held.pointer).sort((a, b) => a.epoch - b.epoch);
}

/** The listing's view of a revision (spec "Configuration revision" without `payload`). */
export function metaOf(state: ConfigState, stored: Omit<RevisionRecord, 'payload'>): RevisionMeta {
  return {
    revision_id: stored.revision_id,
    parent_revision_id: stored.parent_revision_id,
    created_at: stored.created_at,
    created_by: stored.created_by,
    created_by_kind: stored.created_by_kind,
    source: stored.source,
    summary: stored.summary,
    is_active: state.active?.revision_id === stored.revision_id,
    activated_at: state.activated.get(stored.revision_id)?.activated_at ?? null,
  };
}

/** The record of a stored revision with its document, from whatever the cache holds. */
function withPayload(stored: StoredRevision, payload: unknown): RevisionRecord {
  const { seq: _seq, bytes: _bytes, ...head } = stored;
  return { ...head, payload };
}

/**
 * The active revision with its payload, or null before the first activation. While the active document
 * is on the way (its record not folded yet, or being read back after the cache let it go) the revision
 * it replaced answers, so a configured node never reads as unconfigured.
 */
export function activeRevision(state: ConfigState): RevisionRecord | null {
  const active = state.active ? state.revisions.get(state.active.revision_id) : undefined;
  const held = active ? state.payloads.get(active.revision_id) : undefined;
  if (active && held) return withPayload(active, held.payload);
  const standby = state.payloads.standby();
  const prior = standby ? state.revisions.get(standby.revisionId) : undefined;
  return standby && prior ? withPayload(prior, standby.payload) : null;
}

/** The id of the revision `activeRevision` answers with, without building its record (read per request). */
export function activeRevisionId(state: ConfigState): string | null {
  const active = state.active ? state.revisions.get(state.active.revision_id) : undefined;
  if (active && state.payloads.get(active.revision_id)) return active.revision_id;
  const standby = state.payloads.standby();
  return standby && state.revisions.has(standby.revisionId) ? standby.revisionId : null;
}

/** Any stored revision with its payload, read back from the stream when the cache no longer holds it. */
export async function readRevision(state: ConfigState, revisionId: string): Promise<RevisionRecord | null> {
  const stored = state.revisions.get(revisionId);
  if (!stored) return null;
  const held = state.payloads.get(revisionId);
  if (held) return withPayload(stored, held.payload);
  if (stored.seq === null) throw new Error(`revision ${revisionId} has no stream sequence to read it from`);
  return withPayload(stored, await state.payloads.load(revisionId, stored.seq, stored.bytes));
}

/** Reads the active document back when it is not held (activated after the cache let it go). */
export async function loadActive(state: ConfigState): Promise<void> {
  const pinned = state.payloads.active();
  if (!pinned || pinned.resident || !state.payloads.canLoad) return;
  const stored = state.revisions.get(pinned.revisionId);
  if (stored?.seq == null) return;
  await state.payloads.load(stored.revision_id, stored.seq, stored.bytes);
}

/** Revision metadata, newest first. */
export function listRevisions(state: ConfigState, opts: { limit: number; offset: number }): RevisionMeta[] {
  const out: RevisionMeta[] = [];
  for (let i = state.order.length - 1 - opts.offset; i >= 0 && out.length < opts.limit; i -= 1) {
    const stored = state.revisions.get(state.order[i] as string);
    if (stored) out.push(metaOf(state, stored));
  }
  return out;
}

/** `config_audit`: limit default 50, clamped to 1..500, a non-number reads as the default. */
export function configAudit(state: ConfigState, limit: unknown): RevisionMeta[] {
  // A string is read as the other query numbers are (decimal only: `0x10` or `1e2` is no number here).
  const clamped =
    typeof limit === 'number'
      ? Number.isFinite(limit)
        ? Math.min(500, Math.max(1, Math.trunc(limit)))
        : 50
      : clampInt(typeof limit === 'string' ? limit : null, 50, 1, 500);
  return listRevisions(state, { limit: clamped, offset: 0 });
}
