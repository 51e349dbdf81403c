/**
 * One detached coding run's lifecycle (ops/sandboxes.md): absent → launching → running ⇄
 * awaiting_clarification → resumed → … → done | failed | cancelled. Pure: the supervisor (sandbox.host.ts) feeds what
 * it observed and stores the record the machine names with `record`, publishing the event type given.
 * The machine's context is the durable record itself, so a run is resumed from its newest record alone.
 */
import { assign, setup, transition, type SnapshotFrom } from 'xstate';
import type { Payloads, SandboxRunRecord, SandboxTelemetry } from '../../schema/index.js';
import { addTelemetry } from './sandbox.telemetry.js';

type EventType = (typeof Payloads.SandboxEventTypes)[number];

export type RunEvent =
  | { type: 'run.launch'; run: SandboxRunRecord }
  | { type: 'run.launched'; pid: number | null; workdir: string; at: string }
  | { type: 'run.asked'; question: string; audience: string | null; at: string }
  | { type: 'run.answered'; answer: string; at: string }
  | { type: 'run.finished'; summary: string; total_tokens: number; at: string }
  | { type: 'run.failed'; error: string; at: string }
  | { type: 'run.cancelled'; by: string; reason: string; at: string }
  /** Exports tallied since the run's last record (sandbox.telemetry.ts), added to its counts. */
  | { type: 'run.telemetry'; counts: SandboxTelemetry; at: string };

interface Ctx {
  run: SandboxRunRecord | null;
}

const ms = (iso: string): number => Date.parse(iso);
const ended = (run: SandboxRunRecord, at: string) => ({
  ended_at: at,
  duration_ms: Math.max(0, ms(at) - ms(run.started_at)),
});

/** The record as one event leaves it (only called once `run` exists). */
function next(run: SandboxRunRecord | null, e: RunEvent): SandboxRunRecord | null {
  if (e.type === 'run.launch') return e.run;
  if (run === null) return null;
  const base = { ...run, updated_at: e.at };
  switch (e.type) {
    case 'run.launched':
      return { ...base, status: 'running', pid: e.pid, workdir: e.workdir };
    case 'run.asked':
      return {
        ...base,
        status: 'awaiting_clarification',
        question: e.question,
        audience: e.audience,
        paused_at: e.at,
        answer: null,
      };
    case 'run.answered':
      return { ...base, status: 'resumed', answer: e.answer, paused_at: null };
    case 'run.finished':
      return {
        ...base,
        ...ended(run, e.at),
        status: 'done',
        summary: e.summary,
        total_tokens: e.total_tokens,
        error: null,
        paused_at: null,
      };
    case 'run.failed':
      return { ...base, ...ended(run, e.at), status: 'failed', error: e.error, paused_at: null };
    case 'run.cancelled':
      return {
        ...base,
        ...ended(run, e.at),
        status: 'cancelled',
        error: `cancelled by ${e.by}${e.reason ? `: ${e.reason}` : ''}`,
        paused_at: null,
      };
    case 'run.telemetry':
      return { ...base, telemetry: addTelemetry(run.telemetry, e.counts) };
  }
}

const keep = (emit: EventType | null) =>
  ({
    type: 'record',
    params: ({ context, event }: { context: Ctx; event: RunEvent }) => ({
      run: next(context.run, event),
      emit,
    }),
  }) as const;

/** What every live status accepts besides its own moves: an end, and telemetry. */
const live = {
  'run.finished': { target: 'done', actions: [keep('sandbox_run_completed'), 'fold'] },
  'run.failed': { target: 'failed', actions: [keep('sandbox_run_failed'), 'fold'] },
  'run.cancelled': { target: 'cancelled', actions: [keep('sandbox_run_cancelled'), 'fold'] },
  'run.telemetry': { actions: [keep(null), 'fold'] },
} as const;

export const sandboxRunMachine = setup({
  types: { context: {} as Ctx, events: {} as RunEvent, input: {} as { run: SandboxRunRecord | null } },
  actions: {
    /** Effect: store `run` on the run's subject, then publish `emit` (when not null) with it. */
    record: (_, _params: { run: SandboxRunRecord | null; emit: EventType | null }) => undefined,
    fold: assign({ run: ({ context, event }) => next(context.run, event) }),
  },
}).createMachine({
  id: 'sandboxRun',
  context: ({ input }) => ({ run: input.run }),
  initial: 'absent',
  states: {
    absent: { on: { 'run.launch': { target: 'launching', actions: [keep('sandbox_run_started'), 'fold'] } } },
    launching: {
      on: { ...live, 'run.launched': { target: 'running', actions: [keep('sandbox_run_updated'), 'fold'] } },
    },
    running: {
      on: {
        ...live,
        'run.asked': { target: 'awaiting_clarification', actions: [keep('sandbox_run_paused'), 'fold'] },
      },
    },
    awaiting_clarification: {
      on: { ...live, 'run.answered': { target: 'resumed', actions: [keep('sandbox_run_updated'), 'fold'] } },
    },
    resumed: {
      on: {
        ...live,
        'run.asked': { target: 'awaiting_clarification', actions: [keep('sandbox_run_paused'), 'fold'] },
      },
    },
    done: { type: 'final' },
    failed: { type: 'final' },
    cancelled: { type: 'final' },
  },
});

export type RunSnapshot = SnapshotFrom<typeof sandboxRunMachine>;

/** The machine's state for a stored record (or none yet). */
export function snapshotOf(run: SandboxRunRecord | null): RunSnapshot {
  const value = run === null ? 'absent' : run.status;
  return sandboxRunMachine.resolveState({ value, context: { run } });
}

export interface RunStep {
  /** The record to store; null when the event changed nothing (refused in this status). */
  readonly run: SandboxRunRecord | null;
  readonly emit: EventType | null;
}

/** One event on a run: the record to store and the event to publish, or nothing. */
export function stepRun(run: SandboxRunRecord | null, event: RunEvent): RunStep {
  const [, actions] = transition(sandboxRunMachine, snapshotOf(run), event);
  const effect = actions.find((a) => a.type === 'record');
  if (!effect) return { run: null, emit: null };
  const params = effect.params as { run: SandboxRunRecord | null; emit: EventType | null };
  return { run: params.run, emit: params.emit };
}
