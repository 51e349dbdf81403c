/**
 * Detached coding runs (spec "Sandbox run", rule 6): each `sandbox_run_*` event carries the whole run,
 * so the newest one (by instant) per `sandbox_id` is the run. The live `sandboxes` section holds runs not
 * yet ended; `/sandbox-runs` lists every run known, newest `started_at` first. `reconcile` replaces the
 * set from the durable run record and says whether it changed.
 */
import { Payloads, type EventRecord } from '../../schema/index.js';
import type { z } from 'zod';
import { compareInstants, instantMs, isNotOlder } from '../time/instants.js';

type SandboxRun = z.infer<typeof Payloads.SandboxRun>;

export interface SandboxesState {
  readonly runs: Map<string, { run: SandboxRun; ms: number | null }>;
}

export const emptySandboxesState = (): SandboxesState => ({ runs: new Map() });

/** Runs kept in memory (the durable record holds the rest). */
const runsKept = 1_000;

export function applySandboxEvent(state: SandboxesState, e: EventRecord): SandboxesState {
  if (!(Payloads.SandboxEventTypes as readonly string[]).includes(e.type)) return state;
  const p = Payloads.SandboxRun.safeParse(e.payload);
  if (!p.success) return state;
  const ms = instantMs(e.timestamp);
  const current = state.runs.get(p.data.sandbox_id);
  if (!isNotOlder(ms, current?.ms)) return state;
  state.runs.set(p.data.sandbox_id, { run: p.data, ms });
  if (state.runs.size > runsKept) {
    const oldest = [...state.runs.values()].sort((a, b) =>
      compareInstants(a.run.started_at, b.run.started_at),
    )[0];
    if (oldest) state.runs.delete(oldest.run.sandbox_id);
  }
  return state;
}

const newestFirst = (a: SandboxRun, b: SandboxRun): number => compareInstants(b.started_at, a.started_at);

/** `/sandbox-runs`: every known run, newest first. */
export function sandboxRuns(state: SandboxesState): SandboxRun[] {
  return [...state.runs.values()].map((r) => r.run).sort(newestFirst);
}

/** The `sandboxes` section: runs not ended. */
export function liveSandboxes(state: SandboxesState): SandboxRun[] {
  return sandboxRuns(state).filter((r) => !Payloads.terminalSandboxStatuses.has(r.status));
}

/** Replaces the set with the durable run record; true when the live set changed. */
export function reconcileSandboxes(state: SandboxesState, runs: readonly unknown[]): boolean {
  const before = JSON.stringify(liveSandboxes(state));
  state.runs.clear();
  for (const raw of runs) {
    const p = Payloads.SandboxRun.safeParse(raw);
    if (p.success) state.runs.set(p.data.sandbox_id, { run: p.data, ms: null });
  }
  return JSON.stringify(liveSandboxes(state)) !== before;
}
