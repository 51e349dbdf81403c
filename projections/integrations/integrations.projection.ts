/**
 * The integrations read model: a fold of SVC_INTEGRATIONS (the integration actors' records). It holds
 * the arrival counts of every inbound surface (`GET /integrations`), the newest provisioning passes of
 * every kind (`/setup/integrations/{kind}/runs`), and the passes started and not yet finished (what an
 * integration actor rebuilds its state from). Every node folds the same stream, so every node answers
 * the same, and a restart replays what the last run folded. An arrivals rollup replaces the counts it sums,
 * so the arrival records it sums may be gone (arrival-counts.ts, ops/webhooks.md "Compaction").
 */
import { Streams } from '../../bus/index.js';
import { IntegrationRecord, type PassRun, type PassStarted, type SurfaceCounts } from '../../schema/index.js';
import { decodeJson } from '../runner/decode-json.js';
import type { Projection } from '../runner/runner.js';
import {
  applyArrival,
  applyRollup,
  emptyArrivalCounts,
  foldedSeq,
  loadArrivalCounts,
  noArrivals,
  saveArrivalCounts,
  type ArrivalCounts,
} from './arrival-counts.js';

export type { SurfaceCounts };

/** Passes kept per kind (newest finished first). */
export const RUNS_KEPT = 100;

/** A webhook a kind's pass registered at its vendor: its exact address and the vendor's id for it. */
export interface RememberedHook {
  readonly url: string;
  readonly id: string;
}

/** Owned by one runner and updated in place. */
export interface IntegrationsState extends ArrivalCounts {
  /** Per kind, newest finished first, at most `RUNS_KEPT`. */
  readonly runs: Map<string, PassRun[]>;
  /** Passes started and not finished, by run id. */
  readonly started: Map<string, PassStarted>;
  /** Per kind, the webhooks its passes registered and last saw at the vendor (what a disconnect deletes). */
  readonly webhooks: Map<string, RememberedHook[]>;
  /** Per kind, the sequence of each kept run's finish record, in the order of `runs`. */
  readonly runSeqs: Map<string, number[]>;
  /** The sequence of each open start record (the runs of `started`). */
  readonly startedSeqs: Map<string, number>;
  /**
   * Per kind, the sequences of the pass records folded (starts and finishes), oldest first, less those a
   * rollup's `passes_below` says are removed: what a compaction may trim (passTrims).
   */
  readonly passSeqs: Map<string, number[]>;
}

export function emptyIntegrationsState(): IntegrationsState {
  return {
    ...emptyArrivalCounts(),
    runs: new Map(),
    started: new Map(),
    webhooks: new Map(),
    runSeqs: new Map(),
    startedSeqs: new Map(),
    passSeqs: new Map(),
  };
}

/** Pass records of one kind a compaction may remove: those below `below`, `count` of them. */
export interface PassTrim {
  readonly below: number;
  readonly count: number;
}

/**
 * Per kind, the pass records below both its oldest kept run's finish (once `RUNS_KEPT` are kept) and its
 * oldest open start: every run finished there is past the newest `RUNS_KEPT`, and no pass started there is
 * still open. A start goes no later than its finish, so no open pass is read back from a start alone.
 */
export function passTrims(state: IntegrationsState): Map<string, PassTrim> {
  const out = new Map<string, PassTrim>();
  for (const [kind, seqs] of state.passSeqs) {
    const kept = state.runSeqs.get(kind) ?? [];
    if (kept.length < RUNS_KEPT) continue;
    let below = kept[kept.length - 1] ?? 0;
    for (const [id, start] of state.started)
      if (start.kind === kind) below = Math.min(below, state.startedSeqs.get(id) ?? 0);
    const count = seqs.filter((seq) => seq < below).length;
    if (count > 0) out.set(kind, { below, count });
  }
  return out;
}

function notePass(state: IntegrationsState, kind: string, seq: number): void {
  const seqs = state.passSeqs.get(kind) ?? [];
  seqs.push(seq);
  state.passSeqs.set(kind, seqs);
}

/** Folds the record at `seq`; anything that is not a well-formed record is skipped. */
export function applyIntegrationRecord(
  state: IntegrationsState,
  value: unknown,
  seq: number,
): IntegrationsState {
  foldedSeq(state, seq);
  const parsed = IntegrationRecord.safeParse(value);
  if (!parsed.success) return state;
  const record = parsed.data;
  if (record.type === 'arrival') applyArrival(state, record, seq);
  else if (record.type === 'arrivals_rollup') {
    applyRollup(state, record, seq);
    // Removed, even by a rollup the counts pass over: no longer there to trim.
    for (const [kind, below] of Object.entries(record.passes_below ?? {})) {
      const left = (state.passSeqs.get(kind) ?? []).filter((s) => s >= below);
      if (left.length > 0) state.passSeqs.set(kind, left);
      else state.passSeqs.delete(kind);
    }
  } else if (record.type === 'webhooks') {
    if (record.hooks.length === 0) state.webhooks.delete(record.kind);
    else state.webhooks.set(record.kind, record.hooks);
  } else if (record.type === 'pass_started') {
    notePass(state, record.kind, seq);
    state.started.set(record.run_id, record);
    state.startedSeqs.set(record.run_id, seq);
  } else {
    const run = record.run;
    notePass(state, run.kind, seq);
    state.started.delete(run.id);
    state.startedSeqs.delete(run.id);
    const list = state.runs.get(run.kind) ?? [];
    if (list.some((r) => r.id === run.id)) return state;
    const seqs = state.runSeqs.get(run.kind) ?? [];
    list.unshift(run);
    seqs.unshift(seq);
    list.splice(RUNS_KEPT);
    seqs.splice(RUNS_KEPT);
    state.runs.set(run.kind, list);
    state.runSeqs.set(run.kind, seqs);
  }
  return state;
}

interface Saved {
  arrivals: Array<[string, SurfaceCounts]>;
  runs: Array<[string, PassRun[]]>;
  started: Array<[string, PassStarted]>;
  webhooks: Array<[string, RememberedHook[]]>;
  run_seqs: Array<[string, number[]]>;
  started_seqs: Array<[string, number]>;
  pass_seqs: Array<[string, number[]]>;
  counts: ReturnType<typeof saveArrivalCounts>;
}

export const integrationsProjection: Projection<IntegrationsState> = {
  name: 'integrations',
  // 2: rollups, and the arrival records since the newest one. 3: rollups through a sequence below their own,
  // and the arrival records above it kept to add back. 4: the webhooks each kind registered. 5: the sequences
  // of the pass records, which a compaction trims.
  version: 5,
  stream: Streams.Integrations,
  init: emptyIntegrationsState,
  apply: (state, message) => void applyIntegrationRecord(state, decodeJson(message.data), message.seq),
  checkpoint: {
    save: (state): Saved => ({
      arrivals: [...state.arrivals],
      runs: [...state.runs],
      started: [...state.started],
      webhooks: [...state.webhooks],
      run_seqs: [...state.runSeqs],
      started_seqs: [...state.startedSeqs],
      pass_seqs: [...state.passSeqs],
      counts: saveArrivalCounts(state),
    }),
    load: (saved) => {
      if (saved === null || typeof saved !== 'object') return null;
      const s = saved as Partial<Saved>;
      if (
        !Array.isArray(s.arrivals) ||
        !Array.isArray(s.runs) ||
        !Array.isArray(s.started) ||
        !Array.isArray(s.webhooks) ||
        !Array.isArray(s.run_seqs) ||
        !Array.isArray(s.started_seqs) ||
        !Array.isArray(s.pass_seqs)
      )
        return null;
      const counts = loadArrivalCounts(s.counts, new Map(s.arrivals));
      return (
        counts && {
          ...counts,
          runs: new Map(s.runs),
          started: new Map(s.started),
          webhooks: new Map(s.webhooks),
          runSeqs: new Map(s.run_seqs),
          startedSeqs: new Map(s.started_seqs),
          passSeqs: new Map(s.pass_seqs),
        }
      );
    },
  },
};

/** One surface's counts (zeros when nothing ever arrived). */
export function arrivalsOf(state: IntegrationsState, surface: string): SurfaceCounts {
  return { ...(state.arrivals.get(surface) ?? noArrivals()) };
}

/** Passes of `kind`, newest first, after the run `before` (exclusive). */
export function listPassRuns(
  state: IntegrationsState,
  kind: string,
  page: { before?: string; limit: number },
): { runs: PassRun[]; more: boolean } {
  const list = state.runs.get(kind) ?? [];
  const start = page.before === undefined ? 0 : list.findIndex((r) => r.id === page.before) + 1;
  if (page.before !== undefined && start === 0) return { runs: [], more: false };
  return { runs: list.slice(start, start + page.limit), more: list.length > start + page.limit };
}

export function getPassRun(state: IntegrationsState, kind: string, id: string): PassRun | null {
  return (state.runs.get(kind) ?? []).find((r) => r.id === id) ?? null;
}
