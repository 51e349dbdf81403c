/**
 * The node (spec "Node configuration state"): booting → unconfigured → serving → draining → stopped,
 * with the configuration posture and the one applied epoch. The machine decides which revision to apply
 * (node.plan.ts), the posture every outcome leaves (node.posture.ts) and what is announced; its host runs
 * the two effects it names — `apply` (the subsystems) and `announce` (`svc.config.revision_applied`).
 * Pure: specified as given/when/then on `transition()`.
 *
 * The applied epoch is the epoch of the revision this node runs: a failed apply leaves it where it was
 * (the prior revision still serves). `/health` `applied_epoch`, presence, the lag check and its alarms all
 * read this one value. A failed epoch is remembered in the history so it is not tried again until a newer
 * activation; the history is rebuilt on boot from the node's own announcements.
 */
import { and, assign, not, setup } from 'xstate';
import type { Posture } from '../../schema/index.js';
import { emptyNodeHistory, recordOutcome, type NodeHistory } from './node.history.js';
import {
  announcementOf,
  causeOf,
  hasFallback,
  nextApply,
  succeeded,
  type ActiveEpoch,
  type Announcement,
  type NodeApplyOutcome,
  type ApplyRequest,
} from './node.plan.js';
import { nextPosture, PostureCause } from './node.posture.js';

export type NodeEvent =
  /** The process is up; `history` is folded from the node's own announcements (none on a first boot). */
  | { type: 'node.booted'; history?: NodeHistory }
  /** An activation arrived or the reconcile tick fired: the active pointer as this node reads it. */
  | { type: 'node.reconcile'; active: ActiveEpoch | null }
  /** The `apply` effect ended (`subsystems`: those applied, in order, before any failure). */
  | {
      type: 'node.apply.done';
      epoch: number;
      revision_id: string;
      outcome: NodeApplyOutcome;
      subsystems: readonly string[];
      error?: string;
    }
  /** The node lags the fleet epoch more than 45 s while a peer has it. */
  | { type: 'node.lagged' }
  /** Termination signal; only the first counts. */
  | { type: 'node.drain' }
  | { type: 'node.stopped' };

export interface NodeContext {
  readonly configured: boolean;
  /** The epoch of the revision this node runs; 0 before the first apply. */
  readonly appliedEpoch: number;
  readonly appliedRevision: string | null;
  readonly posture: Posture;
  /** The running apply and the posture it started from; null between applies. */
  readonly applying: (ApplyRequest & { readonly before: Posture }) | null;
  /** This node's announcements folded (the recorded ones, then this process's). */
  readonly history: NodeHistory;
  /**
   * The failure this process announced last; null after a success. A node that runs nothing retries its
   * failed epoch every tick: the same failure again is not announced again (once per process).
   */
  readonly announcedFailure: Announcement | null;
}

type Done = Extract<NodeEvent, { type: 'node.apply.done' }>;
const isDone = (event: NodeEvent): event is Done => event.type === 'node.apply.done';

/** The outcome answers the apply that runs (a late or stray report changes nothing). */
const answers = (context: NodeContext, event: NodeEvent): event is Done =>
  isDone(event) &&
  context.applying !== null &&
  context.applying.epoch === event.epoch &&
  context.applying.revision_id === event.revision_id;

const postureAfter = (context: NodeContext, event: Done): Posture => {
  const applying = context.applying;
  if (applying?.restore && succeeded(event.outcome)) return context.history.failed?.posture ?? 'serve';
  return nextPosture(
    {
      posture: context.posture,
      configured: context.configured,
      fallback: hasFallback(context, event.epoch),
      before: applying?.before ?? context.posture,
    },
    causeOf(event.outcome),
  );
};

/** The failure this outcome announces is the one this process announced last (a retry failing again). */
const repeatsFailure = (context: NodeContext, event: Done): boolean => {
  const last = context.announcedFailure;
  if (last === null || succeeded(event.outcome)) return false;
  const now = announcementFor({ context, event });
  return last.epoch === now.epoch && last.revision_id === now.revision_id && last.posture === now.posture;
};

/**
 * Named before `conclude` updates the context, so the announced posture is computed from the same
 * context the update reads.
 */
const announce = { type: 'announce', params: announcementFor } as const;

/** A reconcile tick while unconfigured or serving: starts the apply that is due, if one is. */
const reconcile = {
  guard: 'applyDue',
  actions: [
    'startApply',
    { type: 'apply', params: ({ context }: { context: NodeContext }) => requestOf(context) },
  ],
} as const;

export const nodeMachine = setup({
  types: {
    context: {} as NodeContext,
    events: {} as NodeEvent,
  },
  guards: {
    applyDue: ({ context, event }) =>
      event.type === 'node.reconcile' &&
      context.applying === null &&
      nextApply(context, event.active) !== null,
    succeeded: ({ context, event }) => answers(context, event) && succeeded(event.outcome),
    postponed: ({ context, event }) => answers(context, event) && event.outcome === 'postponed',
    failed: ({ context, event }) => answers(context, event),
    repeated: ({ context, event }) => answers(context, event) && repeatsFailure(context, event),
    restoring: ({ context }) => context.applying?.restore === true,
  },
  actions: {
    // Effects: run by the host (node.host.ts hands them to the config applier).
    apply: (_, _params: ApplyRequest) => undefined,
    announce: (_, _params: Announcement) => undefined,
    /**
     * A restarted node reads the posture its history ends in until this process concludes an apply: one
     * stuck on its own epoch is `stuck` from the start (not `serve`), so an apply postponed at boot does not
     * let its standing alarm clear only for the next failing retry to raise it again.
     */
    recordBoot: assign(({ event }) => {
      if (event.type !== 'node.booted') return {};
      const history = event.history ?? emptyNodeHistory;
      return { history, posture: history.failed?.posture ?? 'serve' };
    }),
    startApply: assign(({ context, event }) => {
      const request = event.type === 'node.reconcile' ? nextApply(context, event.active) : null;
      if (!request) return {};
      return {
        applying: { ...request, before: context.posture },
        posture: nextPosture(
          {
            posture: context.posture,
            configured: context.configured,
            fallback: false,
            before: context.posture,
          },
          PostureCause.ApplyStarted,
        ),
      };
    }),
    /** A concluded apply: the posture the table gives, the epoch when it succeeded, and the history. */
    conclude: assign(({ context, event }) => {
      if (!answers(context, event) || !context.applying) return {};
      const posture = postureAfter(context, event);
      const ok = succeeded(event.outcome);
      const restore = context.applying.restore;
      const announced =
        restore || ok ? null : announcementOf(event, event.outcome, event.subsystems, event.error, posture);
      let history = context.history;
      // A restore is no announcement; a failed one is forgotten, so the active epoch is tried afresh.
      if (restore && !ok) history = emptyNodeHistory;
      else if (!restore)
        history = recordOutcome(
          history,
          announcementOf(event, event.outcome, event.subsystems, event.error, posture),
        );
      return {
        posture,
        applying: null,
        history,
        announcedFailure: restore && !ok ? context.announcedFailure : announced,
        ...(ok ? { configured: true, appliedEpoch: event.epoch, appliedRevision: event.revision_id } : {}),
      };
    }),
    postpone: assign(({ context }) => ({
      applying: null,
      posture: nextPosture(
        {
          posture: context.posture,
          configured: context.configured,
          fallback: context.configured,
          before: context.applying?.before ?? context.posture,
        },
        PostureCause.Postponed,
      ),
    })),
    lag: assign(({ context }) => ({
      posture: nextPosture(
        {
          posture: context.posture,
          configured: context.configured,
          fallback: context.configured,
          before: context.posture,
        },
        PostureCause.Lagged,
      ),
    })),
  },
}).createMachine({
  id: 'node',
  initial: 'booting',
  context: {
    configured: false,
    appliedEpoch: 0,
    appliedRevision: null,
    posture: 'serve',
    applying: null,
    history: emptyNodeHistory,
    announcedFailure: null,
  },
  on: {
    'node.drain': '.draining',
  },
  states: {
    booting: {
      on: { 'node.booted': { target: 'unconfigured', actions: 'recordBoot' } },
    },
    unconfigured: {
      on: {
        'node.reconcile': reconcile,
        'node.apply.done': [
          { guard: 'postponed', actions: 'postpone' },
          { guard: and(['succeeded', 'restoring']), target: 'serving', actions: 'conclude' },
          { guard: 'succeeded', target: 'serving', actions: [announce, 'conclude'] },
          { guard: and(['failed', 'restoring']), actions: 'conclude' },
          { guard: 'repeated', actions: 'conclude' },
          { guard: 'failed', actions: [announce, 'conclude'] },
        ],
      },
    },
    serving: {
      on: {
        'node.reconcile': reconcile,
        'node.apply.done': [
          { guard: 'postponed', actions: 'postpone' },
          { guard: 'repeated', actions: 'conclude' },
          { guard: and(['failed', not('restoring')]), actions: [announce, 'conclude'] },
          { guard: 'failed', actions: 'conclude' },
        ],
        'node.lagged': { actions: 'lag' },
      },
    },
    draining: {
      // A second signal changes nothing: the drain already runs. No apply starts; the one in progress, which
      // the drain waits for, is concluded and announced as when serving, so the history holds what it logged.
      on: {
        'node.drain': {},
        'node.stopped': 'stopped',
        'node.apply.done': [
          { guard: 'postponed', actions: 'postpone' },
          { guard: 'repeated', actions: 'conclude' },
          { guard: and(['failed', not('restoring')]), actions: [announce, 'conclude'] },
          { guard: 'failed', actions: 'conclude' },
        ],
      },
    },
    stopped: { type: 'final' },
  },
});

/** The `apply` effect's parameters: the apply `startApply` just recorded. */
function requestOf(context: NodeContext): ApplyRequest {
  const applying = context.applying;
  if (!applying) throw new Error('node: apply named without an apply running');
  return { epoch: applying.epoch, revision_id: applying.revision_id, restore: applying.restore };
}

/** The announcement of the apply that just ended, with the posture it leaves. */
function announcementFor({ context, event }: { context: NodeContext; event: NodeEvent }): Announcement {
  if (!isDone(event)) throw new Error('node: announce named outside an apply outcome');
  return announcementOf(event, event.outcome, event.subsystems, event.error, postureAfter(context, event));
}
