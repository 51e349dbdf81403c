/**
 * One configuration revision's lifecycle (spec "Revision activation"): stored → active → superseded,
 * with each node's outcome of applying it (applied, unchanged or failed). Pure: its tracker
 * (revisions.ts) folds SVC_CONFIG's records into events for it, so a replay rebuilds the same states.
 */
import { assign, setup } from 'xstate';
import type { ApplyStatus } from '../../schema/index.js';

/** One node's outcome of applying the revision. */
export interface NodeApply {
  readonly status: ApplyStatus;
  readonly epoch: number;
  readonly at: string;
  readonly error?: string;
}

export type RevisionEvent =
  /** Its compare-and-set won `epoch` (the first claim of that epoch in stream order). */
  | { type: 'revision.activated'; epoch: number; activated_at: string }
  /** A newer epoch was won by another revision. */
  | { type: 'revision.superseded'; by: string; epoch: number }
  /** A node announced its outcome of applying it. */
  | { type: 'revision.applied'; node: string; apply: NodeApply };

export interface RevisionContext {
  readonly revision_id: string;
  /** The epoch it won; null while only stored. */
  readonly epoch: number | null;
  readonly activated_at: string | null;
  /** The revision that won the next newer epoch; null while it is the newest. */
  readonly superseded_by: string | null;
  /** Each node's newest outcome (by epoch, then arrival). */
  readonly nodes: Readonly<Record<string, NodeApply>>;
}

export const revisionMachine = setup({
  types: {
    context: {} as RevisionContext,
    events: {} as RevisionEvent,
    input: {} as { revision_id: string },
  },
  guards: {
    /** A node's older announcement never overwrites a newer one. */
    newerForNode: ({ context, event }) =>
      event.type === 'revision.applied' && (context.nodes[event.node]?.epoch ?? 0) <= event.apply.epoch,
  },
  actions: {
    activate: assign(({ event }) =>
      event.type === 'revision.activated' ? { epoch: event.epoch, activated_at: event.activated_at } : {},
    ),
    supersede: assign(({ event }) =>
      event.type === 'revision.superseded' ? { superseded_by: event.by } : {},
    ),
    recordApply: assign(({ context, event }) =>
      event.type === 'revision.applied' ? { nodes: { ...context.nodes, [event.node]: event.apply } } : {},
    ),
  },
}).createMachine({
  id: 'revision',
  initial: 'stored',
  context: ({ input }) => ({
    revision_id: input.revision_id,
    epoch: null,
    activated_at: null,
    superseded_by: null,
    nodes: {},
  }),
  // Announcements count in every state: a node may report after a newer activation.
  on: { 'revision.applied': { guard: 'newerForNode', actions: 'recordApply' } },
  states: {
    /** Stored, never active (a lost compare-and-set, or not yet announced). */
    stored: {
      on: { 'revision.activated': { target: 'active', actions: 'activate' } },
    },
    active: {
      on: { 'revision.superseded': { target: 'superseded', actions: 'supersede' } },
    },
    /** Was active; a newer epoch won. A revision is never active twice (a revert stores a new one). */
    superseded: {},
  },
});
