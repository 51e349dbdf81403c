/**
 * The seat machine's reusable pieces (seat.machine.ts): the action lists a guard or a deadline ends a
 * turn with, the `runPhase` step, and whether an event belongs to the running turn. Pure.
 */
import {
  outcomeOf,
  type DeadlineBreach,
  type FailReason,
  type PhaseName,
  type PhaseRequest,
  type SeatContext,
  type SeatEvent,
  type Turn,
} from './seat.types.js';

/** Runs the phase the turn just entered. */
export const run = {
  type: 'runPhase',
  params: ({ context }: { context: SeatContext }): PhaseRequest => {
    const turn = context.turn as Turn;
    return { turn, phase: turn.phases[turn.phases.length - 1] ?? 'plan' };
  },
} as const;

/** A guard ended the turn: it fails, and the breach is published. */
export const breach = (kind: string, detail: string) =>
  [
    { type: 'fail', params: { reason: 'error', error: `${kind}: ${detail}` } },
    {
      type: 'guardBreach',
      params: ({ context }: { context: SeatContext }) => ({
        turn_id: context.turn?.turn_id ?? '',
        trace_id: context.turn?.wake.trace_id ?? null,
        phase: 'review' as PhaseName,
        kind,
        detail,
      }),
    },
  ] as const;

/** The breach a deadline event carries (on `seat.deadline`, or `expired` on a wake). */
export const expiredOf = (event: SeatEvent): DeadlineBreach | undefined =>
  event.type === 'seat.deadline' || event.type === 'seat.wake' ? event.expired : undefined;

/** A scheduled turn outlived its `timeout_seconds`: it fails, and the breach is published. */
export const timedOut = [
  {
    type: 'fail',
    params: ({ event }: { event: SeatEvent }) => ({
      reason: 'error' as FailReason,
      error: expiredOf(event)?.error ?? 'scheduled_timeout',
    }),
  },
  {
    type: 'guardBreach',
    params: ({ context, event }: { context: SeatContext; event: SeatEvent }) => ({
      ...(expiredOf(event)?.breach ?? { turn_id: null, kind: 'scheduled_timeout' }),
      // The wake's trace: the running turn's, or the late wake's own (it never became a turn).
      trace_id: context.turn?.wake.trace_id ?? (event.type === 'seat.wake' ? event.wake.trace_id : null),
    }),
  },
] as const;

/** What a guard publishes as `turn.guard_breach`: its kind and turn, and the fields of its own. */
export type BreachParams = {
  readonly turn_id: string | null;
  readonly kind: string;
  /** The wake's trace, which the breach is published on (not part of its payload). */
  readonly trace_id?: string | null;
} & Readonly<Record<string, unknown>>;

export const isCurrent = (context: SeatContext, event: SeatEvent, phase?: PhaseName): boolean =>
  context.turn !== null &&
  'turn_id' in event &&
  event.turn_id === context.turn.turn_id &&
  (phase === undefined || outcomeOf(event)?.phase === phase);
