/**
 * The configuration read model: every stored revision (metadata and payload) and the active pointer,
 * rebuilt from SVC_CONFIG. Reads of `/config*` and `config_audit` are answered from here.
 */
import { ActivePointer, RevisionRecord, type RevisionMeta } from '../schema/index.js';

/** Owned by one runner and updated in place: replaying thousands of revisions stays linear. */
export interface ConfigState {
  /** Revisions in stream order (oldest first). */
  readonly order: string[];
  readonly revisions: Map<string, RevisionRecord>;
  /** The winner with the highest epoch, or null before the first activation. */
  active: ActivePointer | null;
  /** Each epoch's winner; `logged` once it comes from the stream (a pointer read only fills a gap). */
  readonly epochs: Map<number, { readonly pointer: ActivePointer; readonly logged: boolean }>;
  /** Every revision that was ever active, with the epoch it won and when. */
  readonly activated: Map<string, ActivePointer>;
}

export function emptyConfigState(): ConfigState {
  return { order: [], revisions: new Map(), active: null, epochs: new Map(), activated: new Map() };
}

/**
 * What the projection consumes, already decoded: a stored revision and an activation announcement come
 * from SVC_CONFIG in stream order; `pointer` is a read of the active pointer in the coordination store,
 * which may be ahead of the stream (its announcement in flight) or the only trace of an activation whose
 * writer stopped before announcing it.
 */
export type ConfigFact =
  | { readonly kind: 'stored'; readonly record: unknown }
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
    const parsed = RevisionRecord.safeParse(fact.record);
    if (!parsed.success || state.revisions.has(parsed.data.revision_id)) return state;
    state.revisions.set(parsed.data.revision_id, parsed.data);
    state.order.push(parsed.data.revision_id);
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
  return state;
}

/** Every activation, oldest epoch first: which revision won each epoch, and when. */
export function activationHistory(state: ConfigState): ActivePointer[] {
  return [...state.epochs.values()].map((held) => held.pointer).sort((a, b) => a.epoch - b.epoch);
}

export function metaOf(state: ConfigState, record: RevisionRecord): RevisionMeta {
  const { payload: _payload, ...meta } = record;
  return {
    ...meta,
    is_active: state.active?.revision_id === record.revision_id,
    activated_at: state.activated.get(record.revision_id)?.activated_at ?? null,
  };
}

/** The active revision with its payload, or null before the first activation. */
export function activeRevision(state: ConfigState): RevisionRecord | null {
  return state.active ? (state.revisions.get(state.active.revision_id) ?? null) : null;
}

/** Revision metadata, newest first. */
export function listRevisions(state: ConfigState, opts: { limit: number; offset: number }): RevisionMeta[] {
  const out: RevisionMeta[] = [];
  for (let i = state.order.length - 1 - opts.offset; i >= 0 && out.length < opts.limit; i -= 1) {
    const record = state.revisions.get(state.order[i] as string);
    if (record) out.push(metaOf(state, record));
  }
  return out;
}

/** `config_audit`: limit default 50, clamped to 1..500, a non-number reads as the default. */
export function configAudit(state: ConfigState, limit: unknown): RevisionMeta[] {
  const asNumber =
    typeof limit === 'number'
      ? limit
      : typeof limit === 'string' && limit.trim() !== ''
        ? Number(limit)
        : NaN;
  const clamped = Number.isFinite(asNumber) ? Math.min(500, Math.max(1, Math.trunc(asNumber))) : 50;
  return listRevisions(state, { limit: clamped, offset: 0 });
}
