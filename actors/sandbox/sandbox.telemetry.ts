/**
 * The OTLP exports of the runs a node watches, tallied in memory and written with the run's next record,
 * or on their own once they waited `everyMs`: one stored record per export would let a chatty (or
 * hostile) coding agent grow the run stream, which is kept without age, by a record per request.
 */
import type { SandboxTelemetry } from '../../schema/index.js';

type Signal = Exclude<keyof SandboxTelemetry, 'spans'>;

export interface TelemetryTally {
  add(id: string, signal: Signal, spans: number): void;
  /** The counts not yet written for a run (then forgotten), or null. */
  take(id: string): SandboxTelemetry | null;
  /** Gives back counts taken but not written (the record they were to ride with was refused). */
  restore(id: string, counts: SandboxTelemetry): void;
  /** Runs whose counts have waited `everyMs` or more at `now`. */
  due(now: number): string[];
  /** Every run with counts not yet written. */
  pending(): string[];
}

const zero = (): SandboxTelemetry => ({ traces: 0, metrics: 0, logs: 0, spans: 0 });

export const addTelemetry = (a: SandboxTelemetry, b: SandboxTelemetry): SandboxTelemetry => ({
  traces: a.traces + b.traces,
  metrics: a.metrics + b.metrics,
  logs: a.logs + b.logs,
  spans: a.spans + b.spans,
});

export function telemetryTally(opts: {
  readonly everyMs: number;
  readonly now: () => number;
}): TelemetryTally {
  const held = new Map<string, { counts: SandboxTelemetry; since: number }>();
  const hold = (id: string): SandboxTelemetry => {
    let entry = held.get(id);
    if (!entry) held.set(id, (entry = { counts: zero(), since: opts.now() }));
    return entry.counts;
  };
  return {
    add(id, signal, spans) {
      const counts = hold(id);
      counts[signal] += 1;
      counts.spans += spans;
    },
    take(id) {
      const entry = held.get(id);
      held.delete(id);
      return entry?.counts ?? null;
    },
    restore(id, counts) {
      Object.assign(hold(id), addTelemetry(hold(id), counts));
    },
    due(now) {
      return [...held].filter(([, e]) => now - e.since >= opts.everyMs).map(([id]) => id);
    },
    pending: () => [...held.keys()],
  };
}
