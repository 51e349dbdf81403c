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
  active: ActivePointer | null;
  /** Activation time of each revision that was ever active. */
  readonly activatedAt: Map<string, string>;
}

export function emptyConfigState(): ConfigState {
  return { order: [], revisions: new Map(), active: null, activatedAt: new Map() };
}

/** What the projection consumes, already decoded from the bus message. */
export type ConfigFact =
  | { readonly kind: 'stored'; readonly record: unknown }
  | { readonly kind: 'activated'; readonly pointer: unknown };

/**
 * Folds one fact into the state (in place). Malformed facts are skipped (a read model never refuses history),
 * and an activation never moves the epoch backwards, so replays and duplicates are harmless.
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
  if (state.active && parsed.data.epoch <= state.active.epoch) return state;
  state.activatedAt.set(parsed.data.revision_id, parsed.data.activated_at);
  state.active = parsed.data;
  return state;
}

export function metaOf(state: ConfigState, record: RevisionRecord): RevisionMeta {
  const { payload: _payload, ...meta } = record;
  return {
    ...meta,
    is_active: state.active?.revision_id === record.revision_id,
    activated_at: state.activatedAt.get(record.revision_id) ?? null,
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
