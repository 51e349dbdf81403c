/**
 * Detached coding runs (spec "Sandbox run", rule 6): each `sandbox_run_*` event carries the whole run,
 * so the newest one (by instant) per `sandbox_id` is the run. The live `sandboxes` section holds runs not
 * yet ended; `/sandbox-runs` lists every run known, newest `started_at` first. `reconcile` replaces the
 * set from the durable run record and says whether it changed. Memory holds every live run and the
 * RUNS_KEPT ended runs that ended last: a fold and a reconcile drop the same ones (the earliest end first,
 * ties by id), so the list does not change between an event and the reconcile after it. Each run also shows its `telemetry` (what
 * its receiver accepted), which only the record carries: an event keeps the counts last reconciled.
 */
import { Payloads, SandboxTelemetry, type EventRecord } from '../../schema/index.js';
import type { z } from 'zod';
import { compareInstantMs, instantMs, isNotOlder } from '../time/instants.js';

type SandboxRun = z.infer<typeof Payloads.SandboxRun>;
/** A run as listed: null counts when the record has not been read yet (a run first seen past its start). */
type ListedRun = SandboxRun & { telemetry: SandboxTelemetry | null };

export interface SandboxesState {
  readonly runs: Map<string, { run: SandboxRun; ms: number | null; telemetry: SandboxTelemetry | null }>;
}

/** A run is recorded with zero counts at launch: one first seen at its start has accepted nothing yet. */
const noTelemetry = (): SandboxTelemetry => ({ traces: 0, metrics: 0, logs: 0, spans: 0 });

export const emptySandboxesState = (): SandboxesState => ({ runs: new Map() });

/** Ended runs kept in memory (the durable record holds the rest, 30 days); live runs are never dropped. */
const RUNS_KEPT = 1_000;

const isLive = (run: SandboxRun): boolean => !Payloads.terminalSandboxStatuses.has(run.status);

/** When an ended run ended (its start when that is not said): the cap drops the earliest first. */
const endedMs = (run: SandboxRun): number | null => instantMs(run.ended_at ?? run.started_at);

/** Which of two ended runs leaves first: the earlier end, ties by id, so every path drops the same one. */
const leavesFirst = (
  a: { run: SandboxRun; end: number | null },
  b: { run: SandboxRun; end: number | null },
) => compareInstantMs(a.end, b.end) || (a.run.sandbox_id < b.run.sandbox_id ? -1 : 1);

/** Drops ended runs past the cap, the one that leaves first each time (one pass a drop). */
function capEnded(state: SandboxesState): void {
  if (state.runs.size <= RUNS_KEPT) return;
  for (;;) {
    let ended = 0;
    let first: { run: SandboxRun; end: number | null } | null = null;
    for (const { run } of state.runs.values()) {
      if (isLive(run)) continue;
      ended += 1;
      const candidate = { run, end: endedMs(run) };
      if (first === null || leavesFirst(candidate, first) < 0) first = candidate;
    }
    if (ended <= RUNS_KEPT || first === null) return;
    state.runs.delete(first.run.sandbox_id);
  }
}

/** Folds one event; true when the live `sandboxes` section changed (a live run came, went or changed). */
export function applySandboxEvent(state: SandboxesState, e: EventRecord): boolean {
  if (!(Payloads.SandboxEventTypes as readonly string[]).includes(e.type)) return false;
  const p = Payloads.SandboxRun.safeParse(e.payload);
  if (!p.success) return false;
  const ms = instantMs(e.timestamp);
  const current = state.runs.get(p.data.sandbox_id);
  if (!isNotOlder(ms, current?.ms)) return false;
  const telemetry = current?.telemetry ?? (e.type === 'sandbox_run_started' ? noTelemetry() : null);
  state.runs.set(p.data.sandbox_id, { run: p.data, ms, telemetry });
  // The cap drops ended runs only, so it never moves the live section.
  capEnded(state);
  // A run keeps its place in the map when it changes, so the section moves only when its content does.
  return current === undefined
    ? isLive(p.data)
    : (isLive(current.run) || isLive(p.data)) && JSON.stringify(current.run) !== JSON.stringify(p.data);
}

/**
 * Runs newest `started_at` first (ties in the map's order), each stamp read once before sorting: a
 * comparison that read both stamps took 20–40 ms a list at 1,000 runs.
 */
function newestFirst(runs: ListedRun[]): ListedRun[] {
  const keyed = runs.map((run) => ({ run, ms: instantMs(run.started_at) }));
  keyed.sort((a, b) => compareInstantMs(b.ms, a.ms));
  return keyed.map((k) => k.run);
}

const listed = (r: { run: SandboxRun; telemetry: SandboxTelemetry | null }): ListedRun => ({
  ...r.run,
  telemetry: r.telemetry,
});

/** `/sandbox-runs`: every known run, newest first. */
export function sandboxRuns(state: SandboxesState): ListedRun[] {
  return newestFirst([...state.runs.values()].map(listed));
}

/** The `sandboxes` section: runs not ended (those filtered first: a sort keeps its order when some leave). */
export function liveSandboxes(state: SandboxesState): ListedRun[] {
  const live: ListedRun[] = [];
  for (const r of state.runs.values()) if (isLive(r.run)) live.push(listed(r));
  return newestFirst(live);
}

/** Replaces the set with the durable run record (capped as a fold caps it); true when the live set changed. */
export function reconcileSandboxes(state: SandboxesState, runs: readonly unknown[]): boolean {
  const before = JSON.stringify(liveSandboxes(state));
  const known = new Map([...state.runs].map(([id, r]) => [id, r.telemetry]));
  const parsed: { run: SandboxRun; raw: unknown }[] = [];
  for (const raw of runs) {
    const p = Payloads.SandboxRun.safeParse(raw);
    if (p.success) parsed.push({ run: p.data, raw });
  }
  const ended = parsed.filter((r) => !isLive(r.run)).map((r) => ({ run: r.run, end: endedMs(r.run) }));
  ended.sort(leavesFirst);
  const dropped = new Set(ended.slice(0, Math.max(0, ended.length - RUNS_KEPT)).map((r) => r.run.sandbox_id));
  state.runs.clear();
  for (const { run, raw } of parsed) {
    if (dropped.has(run.sandbox_id)) continue;
    const counts = SandboxTelemetry.safeParse((raw as { telemetry?: unknown }).telemetry);
    const telemetry = counts.success ? counts.data : (known.get(run.sandbox_id) ?? null);
    state.runs.set(run.sandbox_id, { run, ms: null, telemetry });
  }
  return JSON.stringify(liveSandboxes(state)) !== before;
}
