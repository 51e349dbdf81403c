/**
 * One agent seat (DESIGN.md "seat": idle ⇄ working{plan → execute → review}; stopped{paused, budget}).
 * Pure: the host sends wakes, phase outcomes, pause/resume and settings in, and runs the effects the
 * machine names — `runPhase`, `abortTurn`, `completeTurn`, `guardBreach`, `announcePaused`,
 * `announceResumed`. A turn keeps the limits it started with (an apply mid-turn changes the next one).
 * A scheduled turn's deadline arrives as `seat.deadline` (or as `expired` on the wake): the host keeps
 * the clock, the machine decides whether a turn is still running to be ended.
 */
import { assign, setup } from 'xstate';
import { foldNeeds, type SeatNeed } from '../../schema/index.js';
import { defaultLimits, type TurnLimits } from './seat.limits.js';
import { needsFor } from './seat.needs.js';
import { breach, expiredOf, isCurrent, run, timedOut, type BreachParams } from './seat.steps.js';
import {
  completed,
  fold,
  outcomeOf,
  type FailReason,
  type Paused,
  type PhaseName,
  type PhaseRequest,
  type SeatContext,
  type SeatEvent,
  type Turn,
  type TurnCompletedPayload,
} from './seat.types.js';

export type {
  DeadlineBreach,
  FailReason,
  Paused,
  PhaseName,
  PhaseOutcome,
  PhaseRequest,
  PlanDecision,
  SeatContext,
  SeatEvent,
  Turn,
  TurnCompletedPayload,
  Wake,
} from './seat.types.js';

const deferred = ({ event }: { event: SeatEvent }) =>
  event.type === 'seat.turn.deferred'
    ? { turn_id: event.turn_id, retry_at: event.retry_at }
    : { turn_id: '', retry_at: '' };

export const seatMachine = setup({
  types: {
    context: {} as SeatContext,
    events: {} as SeatEvent,
    input: {} as {
      handle: string;
      limits?: TurnLimits;
      paused?: Paused | null;
      /** The open needs as the seat's log left them (rebuilt on start). */
      needs?: readonly SeatNeed[];
    },
  },
  actions: {
    // Effects, implemented by the host (seat.host.ts) through `provide`.
    runPhase: (_, _params: PhaseRequest) => undefined,
    /** `reason`: why (it becomes the aborted phase's error). */
    abortTurn: (_, _params: { turn_id: string; reason: string }) => undefined,
    /**
     * A `stop_running` pause: the running turn is cut, not ended — nothing is recorded as failed, its
     * wake stays in the inbox and the turn resumes from its journal once the seat is resumed.
     */
    cutTurn: (_, _params: { turn_id: string }) => undefined,
    /** The provider is unavailable until `retry_at`: the turn's wake waits in the inbox until then. */
    deferTurn: (_, _params: { turn_id: string; retry_at: string }) => undefined,
    completeTurn: (
      _,
      _params: {
        payload: TurnCompletedPayload;
        wake_id: string;
        /** The wake's trace: the turn record joins the trace of its phases. */
        trace_id: string;
        stopped: FailReason | null;
        /** The open needs the completion carries: the turn's first, then those asked outside it. */
        needs: readonly SeatNeed[];
      },
    ) => undefined,
    guardBreach: (_, _params: BreachParams) => undefined,
    announcePaused: (_, _params: { paused: Paused }) => undefined,
    announceResumed: (_, _params: { by: string; at: string; reason?: string }) => undefined,
    // Context updates.
    begin: assign(({ context, event }) => {
      if (event.type !== 'seat.wake') return {};
      const turn: Turn = {
        turn_id: event.turn_id,
        wake: event.wake,
        started_at: event.at,
        limits: event.limits ?? context.limits,
        iteration: 0,
        phases: ['plan'],
        decision: null,
        plan: null,
        artifact: null,
        delivered: false,
        notes: null,
        iterated: null,
        reviews: 0,
        passed_first: null,
        total_tokens: 0,
        failure: null,
      };
      return { turn };
    }),
    fold: assign(({ context, event }) =>
      event.type === 'seat.phase.done' && context.turn ? { turn: fold(context.turn, event) } : {},
    ),
    enter: assign(({ context }, params: { phase: PhaseName; next?: boolean }) =>
      context.turn
        ? {
            turn: {
              ...context.turn,
              iteration: context.turn.iteration + (params.next ? 1 : 0),
              phases: [...context.turn.phases, params.phase],
            },
          }
        : {},
    ),
    /** A wake that expired before it was taken: the turn ends without running a phase. */
    unstarted: assign(({ context }) => (context.turn ? { turn: { ...context.turn, phases: [] } } : {})),
    remember: assign(({ context }) =>
      context.turn ? { turn: { ...context.turn, iterated: context.turn.artifact } } : {},
    ),
    fail: assign(({ context, event }, params: { reason?: FailReason; error?: string }) => {
      if (!context.turn) return {};
      const tokens = event.type === 'seat.phase.failed' ? event.tokens : 0;
      const reason = params.reason ?? (event.type === 'seat.phase.failed' ? event.reason : 'error');
      const error = params.error ?? (event.type === 'seat.phase.failed' ? event.error : 'failed');
      return {
        turn: {
          ...context.turn,
          total_tokens: context.turn.total_tokens + tokens,
          failure: { reason, error },
        },
      };
    }),
    pause: assign(({ event }) => (event.type === 'seat.pause' ? { paused: event.paused } : {})),
    unpause: assign({ paused: null }),
    settings: assign(({ event }) => (event.type === 'seat.settings' ? { limits: event.limits } : {})),
    clear: assign({ turn: null }),
    needs: assign(({ context, event }) =>
      event.type === 'seat.need.recorded' || event.type === 'seat.needs.closed'
        ? { needs: foldNeeds(context.needs, event) }
        : {},
    ),
  },
  guards: {
    skipped: ({ context, event }) =>
      isCurrent(context, event, 'plan') &&
      outcomeOf(event)?.phase === 'plan' &&
      (outcomeOf(event) as { decision: string }).decision === 'skip',
    planned: ({ context, event }) => isCurrent(context, event, 'plan'),
    deliveredDirect: ({ context, event }) => {
      const o = outcomeOf(event);
      return (
        isCurrent(context, event, 'execute') &&
        context.turn?.decision === 'direct' &&
        o?.phase === 'execute' &&
        o.delivered
      );
    },
    executed: ({ context, event }) => isCurrent(context, event, 'execute'),
    accepted: ({ context, event }) => {
      const o = outcomeOf(event);
      return isCurrent(context, event, 'review') && o?.phase === 'review' && o.verdict === 'done';
    },
    stalled: ({ context, event }) =>
      isCurrent(context, event, 'review') &&
      context.turn?.iterated !== null &&
      context.turn?.iterated === context.turn?.artifact,
    tooDeep: ({ context, event }) =>
      isCurrent(context, event, 'review') &&
      context.turn !== null &&
      context.turn.iteration + 1 >= context.turn.limits.max_iterations,
    reviewed: ({ context, event }) => isCurrent(context, event, 'review'),
    failedNow: ({ context, event }) => isCurrent(context, event),
    overdue: ({ context, event }) => event.type === 'seat.deadline' && isCurrent(context, event),
    expiredWake: ({ event }) => expiredOf(event) !== undefined,
    stopRunning: ({ event }) => event.type === 'seat.pause' && event.paused.stop_running,
    isPaused: ({ context }) => context.paused !== null,
    notPaused: ({ context }) => context.paused === null,
    deferredPaused: ({ context, event }) => isCurrent(context, event) && context.paused !== null,
    budgetStop: ({ context }) => context.turn?.failure?.reason === 'budget',
  },
}).createMachine({
  id: 'seat',
  context: ({ input }) => ({
    handle: input.handle,
    limits: input.limits ?? defaultLimits,
    paused: input.paused ?? null,
    turn: null,
    needs: input.needs ?? [],
  }),
  initial: 'boot',
  on: {
    'seat.settings': { actions: 'settings' },
    // Whatever the seat is doing: a question asked, or questions answered, withdrawn or cleared.
    'seat.need.recorded': { actions: 'needs' },
    'seat.needs.closed': { actions: 'needs' },
  },
  states: {
    boot: { always: [{ guard: 'isPaused', target: 'stopped.paused' }, { target: 'idle' }] },
    idle: {
      on: {
        'seat.wake': [
          { guard: 'expiredWake', target: 'ending', actions: ['begin', 'unstarted', ...timedOut] },
          { target: 'working', actions: 'begin' },
        ],
        'seat.pause': {
          target: 'stopped.paused',
          actions: ['pause', { type: 'announcePaused', params: ({ event }) => ({ paused: event.paused }) }],
        },
      },
    },
    working: {
      initial: 'plan',
      entry: { type: 'runPhase', params: ({ context }) => ({ turn: context.turn as Turn, phase: 'plan' }) },
      on: {
        'seat.phase.failed': { guard: 'failedNow', target: 'ending', actions: { type: 'fail', params: {} } },
        // Not an end: the turn resumes from its journal at retry_at, so nothing is completed now.
        'seat.turn.deferred': [
          {
            guard: 'deferredPaused',
            target: 'stopped.paused',
            actions: [{ type: 'deferTurn', params: deferred }, 'clear'],
          },
          {
            guard: 'failedNow',
            target: 'idle',
            actions: [{ type: 'deferTurn', params: deferred }, 'clear'],
          },
        ],
        // The turn ends now; the aborted phase's late result is another turn's and is ignored.
        'seat.deadline': {
          guard: 'overdue',
          target: 'ending',
          // Aborted first: the phase's live view closes on the abort, so its last frame is stamped before
          // the breach: no frame of the cut call is stamped after the record of its end.
          actions: [
            {
              type: 'abortTurn',
              params: ({ event }) => ({ turn_id: event.turn_id, reason: event.expired.error }),
            },
            ...timedOut,
          ],
        },
        'seat.pause': [
          {
            guard: 'stopRunning',
            target: 'stopped.paused',
            actions: [
              'pause',
              { type: 'announcePaused', params: ({ event }) => ({ paused: event.paused }) },
              { type: 'cutTurn', params: ({ context }) => ({ turn_id: context.turn?.turn_id ?? '' }) },
              'clear',
            ],
          },
          // A pause already in force stays as it is (only stop_running escalates it, above).
          {
            guard: 'notPaused',
            actions: ['pause', { type: 'announcePaused', params: ({ event }) => ({ paused: event.paused }) }],
          },
        ],
        'seat.resume': {
          guard: 'isPaused',
          actions: [
            'unpause',
            {
              type: 'announceResumed',
              params: ({ event }) => ({
                by: event.by,
                at: event.at,
                ...(event.reason ? { reason: event.reason } : {}),
              }),
            },
          ],
        },
      },
      states: {
        plan: {
          on: {
            'seat.phase.done': [
              { guard: 'skipped', target: '#seat.ending', actions: 'fold' },
              {
                guard: 'planned',
                target: 'execute',
                actions: ['fold', { type: 'enter', params: { phase: 'execute' } }, run],
              },
            ],
          },
        },
        execute: {
          on: {
            'seat.phase.done': [
              { guard: 'deliveredDirect', target: '#seat.ending', actions: 'fold' },
              {
                guard: 'executed',
                target: 'review',
                actions: ['fold', { type: 'enter', params: { phase: 'review' } }, run],
              },
            ],
          },
        },
        review: {
          on: {
            'seat.phase.done': [
              { guard: 'accepted', target: '#seat.ending', actions: 'fold' },
              {
                guard: 'stalled',
                target: '#seat.ending',
                actions: ['fold', ...breach('stall', 'two reviews sent back the same work')],
              },
              {
                guard: 'tooDeep',
                target: '#seat.ending',
                actions: [
                  'fold',
                  ...breach('depth', 'review did not accept the work within the iteration limit'),
                ],
              },
              {
                guard: 'reviewed',
                target: 'plan',
                actions: ['fold', 'remember', { type: 'enter', params: { phase: 'plan', next: true } }, run],
              },
            ],
          },
        },
      },
    },
    /** Publishes the turn, then settles where the seat now stands. */
    ending: {
      entry: {
        type: 'completeTurn',
        params: ({ context, event }) => {
          const turn = context.turn as Turn;
          const at = 'at' in event && typeof event.at === 'string' ? event.at : turn.started_at;
          return {
            payload: completed(turn, at),
            wake_id: turn.wake.id,
            trace_id: turn.wake.trace_id,
            stopped: turn.failure?.reason ?? null,
            needs: needsFor(context.needs, turn.turn_id),
          };
        },
      },
      always: [
        { guard: 'isPaused', target: 'stopped.paused', actions: 'clear' },
        { guard: 'budgetStop', target: 'stopped.budget', actions: 'clear' },
        { target: 'idle', actions: 'clear' },
      ],
    },
    stopped: {
      initial: 'paused',
      states: {
        paused: {
          on: {
            'seat.resume': {
              target: '#seat.idle',
              actions: [
                'unpause',
                {
                  type: 'announceResumed',
                  params: ({ event }) => ({
                    by: event.by,
                    at: event.at,
                    ...(event.reason ? { reason: event.reason } : {}),
                  }),
                },
              ],
            },
          },
        },
        /** A wake tries again: the host checks the budget before every model call. */
        budget: {
          on: {
            'seat.wake': [
              { guard: 'expiredWake', target: '#seat.ending', actions: ['begin', 'unstarted', ...timedOut] },
              { target: '#seat.working', actions: 'begin' },
            ],
            'seat.pause': {
              target: 'paused',
              actions: [
                'pause',
                { type: 'announcePaused', params: ({ event }) => ({ paused: event.paused }) },
              ],
            },
          },
        },
      },
    },
  },
});
