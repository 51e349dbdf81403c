/**
 * The scheduler duty (DESIGN.md "scheduler": per schedule waiting → firing → ledger row). One node
 * holds the duty; while it does, each runnable schedule waits for its next fire time, fires for its
 * runners at the tick, and waits again. Pure: the host sends the clock, the duty and the applied
 * schedules in, and runs the two effects the machine names — `fire` (claim, wake, ledger row) and
 * `arm` (one timer at the earliest pending fire time).
 */
import { assign, setup } from 'xstate';
import type { EffectiveSchedule } from '../../schema/index.js';
import {
  catchupFirings,
  dueFirings,
  earliest,
  planDue,
  replanDue,
  type DueMap,
  type Firing,
  type PlannedFrom,
} from './scheduler.plan.js';

export type SchedulerEvent =
  /**
   * A config apply (or boot) resolved these schedules at `at`; `planned_from` is when each one's timing
   * was first planned, as recorded for the fleet (absent: no later than any holder's last run).
   */
  | { type: 'scheduler.planned'; schedules: EffectiveSchedule[]; at: string; planned_from?: PlannedFrom }
  /** This node took the duty at `at`; `since` is when the previous holder last ran (null: never). */
  | { type: 'scheduler.duty.acquired'; at: string; since: string | null }
  | { type: 'scheduler.duty.lost' }
  /** The armed timer went off (or any later instant). */
  | { type: 'scheduler.tick'; at: string };

export interface SchedulerContext {
  readonly schedules: EffectiveSchedule[];
  /** Next fire time per schedule key while holding the duty. */
  readonly due: DueMap;
  /** When each schedule's timing was first planned: a catchup owes nothing before it. */
  readonly plannedFrom: PlannedFrom;
  /** Firings decided by the last transition (what `fire` executes). */
  readonly firings: Firing[];
}

const at = (iso: string): Date => new Date(iso);

export const schedulerMachine = setup({
  types: { context: {} as SchedulerContext, events: {} as SchedulerEvent },
  actions: {
    // Effects: implemented by the host (scheduler.host.ts) through `provide`.
    fire: (_, _params: { firings: Firing[] }) => undefined,
    arm: (_, _params: { at: string | null }) => undefined,
    store: assign(({ event }) =>
      event.type === 'scheduler.planned'
        ? { schedules: event.schedules, plannedFrom: event.planned_from ?? {} }
        : {},
    ),
    replan: assign(({ context, event }) =>
      event.type === 'scheduler.planned'
        ? {
            schedules: event.schedules,
            plannedFrom: event.planned_from ?? {},
            due: replanDue(context.schedules, context.due, event.schedules, at(event.at)),
            firings: [],
          }
        : {},
    ),
    catchUp: assign(({ context, event }) =>
      event.type === 'scheduler.duty.acquired'
        ? {
            firings: catchupFirings(
              context.schedules,
              event.since === null ? null : at(event.since),
              at(event.at),
              context.plannedFrom,
            ),
            due: planDue(context.schedules, at(event.at)),
          }
        : {},
    ),
    // A tick, and an apply before it re-plans: a fire time it finds passed was due under the plan in
    // force then (its timer had not run yet: a busy event loop or queue), so it fires before the apply
    // re-times, disables or removes its schedule.
    tick: assign(({ context, event }) =>
      event.type === 'scheduler.tick' || event.type === 'scheduler.planned'
        ? dueFirings(context.schedules, context.due, at(event.at))
        : {},
    ),
    forget: assign({ due: {}, firings: [] }),
  },
}).createMachine({
  id: 'scheduler',
  initial: 'standby',
  context: { schedules: [], due: {}, plannedFrom: {}, firings: [] },
  states: {
    /** Another node (or nobody yet) holds the duty: keep the schedules, fire nothing. */
    standby: {
      on: {
        'scheduler.planned': { actions: 'store' },
        'scheduler.duty.acquired': {
          target: 'holding',
          actions: [
            'catchUp',
            { type: 'fire', params: ({ context }) => ({ firings: context.firings }) },
            { type: 'arm', params: ({ context }) => ({ at: earliest(context.due) }) },
          ],
        },
      },
    },
    holding: {
      on: {
        'scheduler.planned': {
          actions: [
            'tick',
            { type: 'fire', params: ({ context }) => ({ firings: context.firings }) },
            'replan',
            { type: 'arm', params: ({ context }) => ({ at: earliest(context.due) }) },
          ],
        },
        'scheduler.tick': {
          actions: [
            'tick',
            { type: 'fire', params: ({ context }) => ({ firings: context.firings }) },
            { type: 'arm', params: ({ context }) => ({ at: earliest(context.due) }) },
          ],
        },
        'scheduler.duty.lost': {
          target: 'standby',
          actions: ['forget', { type: 'arm', params: { at: null } }],
        },
      },
    },
  },
});
