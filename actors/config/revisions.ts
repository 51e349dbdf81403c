/**
 * Every revision's actor state, folded from SVC_CONFIG's records through the revision machine's
 * `transition()`: stored records create revisions, activation announcements decide the winner of each
 * epoch (the first claim in stream order; DESIGN.md "Agreement comes from log order") and supersede the
 * one before, apply announcements record each node's outcome. The fold reads each subject's records in
 * their order and gives the same table whatever way the subjects interleave, so a replay from zero and a
 * live follower agree.
 */
import { initialTransition, transition, type SnapshotFrom } from 'xstate';
import { ActivePointer, RevisionApplied } from '../../schema/index.js';
import { revisionMachine, type NodeApply, type RevisionEvent } from './revision.machine.js';

export type RevisionSnapshot = SnapshotFrom<typeof revisionMachine>;

export interface RevisionTable {
  readonly revisions: Map<string, RevisionSnapshot>;
  /** Each epoch's winner. */
  readonly winners: Map<number, string>;
  /** The winner of the highest epoch. */
  active: { readonly revision_id: string; readonly epoch: number } | null;
}

/** A record of SVC_CONFIG, decoded (`stored` needs only the record's `revision_id`). */
export type RevisionFact =
  | { readonly kind: 'stored'; readonly record: unknown }
  | { readonly kind: 'activated'; readonly pointer: unknown }
  | { readonly kind: 'applied'; readonly announcement: unknown };

export const emptyRevisionTable = (): RevisionTable => ({
  revisions: new Map(),
  winners: new Map(),
  active: null,
});

/** The lifecycle as reads show it. */
export interface RevisionStatus {
  readonly revision_id: string;
  readonly state: 'stored' | 'active' | 'superseded';
  readonly epoch: number | null;
  readonly superseded_by: string | null;
  readonly nodes: Readonly<Record<string, NodeApply>>;
}

export function revisionStatus(snapshot: RevisionSnapshot): RevisionStatus {
  const { revision_id, epoch, superseded_by, nodes } = snapshot.context;
  return { revision_id, state: snapshot.value, epoch, superseded_by, nodes };
}

const uuidOf = (record: unknown): string | null => {
  if (record === null || typeof record !== 'object') return null;
  const id = (record as { revision_id?: unknown }).revision_id;
  return typeof id === 'string' && id.length > 0 ? id : null;
};

function revision(table: RevisionTable, id: string): RevisionSnapshot {
  let snapshot = table.revisions.get(id);
  if (!snapshot) {
    [snapshot] = initialTransition(revisionMachine, { revision_id: id });
    table.revisions.set(id, snapshot);
  }
  return snapshot;
}

function send(table: RevisionTable, id: string, event: RevisionEvent): void {
  const [next] = transition(revisionMachine, revision(table, id), event);
  table.revisions.set(id, next);
}

/** Folds one fact into the table (in place); malformed facts are skipped. */
export function foldRevisionFact(table: RevisionTable, fact: RevisionFact): RevisionTable {
  if (fact.kind === 'stored') {
    const id = uuidOf(fact.record);
    if (id !== null) revision(table, id);
    return table;
  }
  if (fact.kind === 'applied') {
    const parsed = RevisionApplied.safeParse(fact.announcement);
    if (!parsed.success) return table;
    const { node, revision_id, epoch, status, at, error } = parsed.data;
    send(table, revision_id, {
      type: 'revision.applied',
      node,
      apply: { status, epoch, at, ...(error !== undefined ? { error } : {}) },
    });
    return table;
  }
  const parsed = ActivePointer.safeParse(fact.pointer);
  if (!parsed.success || table.winners.has(parsed.data.epoch)) return table;
  const { revision_id, epoch, activated_at } = parsed.data;
  table.winners.set(epoch, revision_id);
  send(table, revision_id, { type: 'revision.activated', epoch, activated_at });
  const before = table.active;
  if (before === null || epoch > before.epoch) {
    table.active = { revision_id, epoch };
    if (before) send(table, before.revision_id, { type: 'revision.superseded', by: revision_id, epoch });
  } else {
    // An older epoch announced late: it was active once, and is already superseded.
    send(table, revision_id, { type: 'revision.superseded', by: before.revision_id, epoch: before.epoch });
  }
  return table;
}

/**
 * True when a node other than `nodeId` announced the winner of `epoch`, or of a newer epoch, applied (or
 * unchanged): the peer "has it" (spec: a node lags on the fleet epoch while a peer has it).
 */
export function peerApplied(table: RevisionTable, epoch: number, nodeId: string): boolean {
  for (const [won, revisionId] of table.winners) {
    if (won < epoch) continue;
    const nodes = table.revisions.get(revisionId)?.context.nodes ?? {};
    if (Object.entries(nodes).some(([node, apply]) => node !== nodeId && apply.status !== 'failed'))
      return true;
  }
  return false;
}
