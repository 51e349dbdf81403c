/**
 * The sandbox runs' list and live section read each `started_at` once before sorting: over random events
 * (stamps tied, in other offsets, naming no instant, past the kept cap) they answer what a sort comparing
 * the stamps themselves answers, and the cap drops the ended run a sort by end (ties by id) would put first,
 * never a live one. Each fold says whether
 * the live section changed exactly when its content did (what decides a push to the live stream).
 */
import fc from 'fast-check';
import t from 'tap';
import {
  applySandboxEvent,
  emptySandboxesState,
  liveSandboxes,
  sandboxRuns,
} from '../../../projections/sandboxes/sandboxes.projection.js';
import { Payloads, compareStamps, type EventRecord } from '../../../schema/index.js';

const stamps = [
  '2026-11-01T10:00:00Z',
  '2026-11-01T10:00:00.000Z',
  '2026-11-01T11:00:00+01:00',
  '2026-11-01T10:00:00.5Z',
  '2026-11-01T09:59:59.999Z',
  '2026-11-02T00:00:00Z',
  'not a time',
  'soon',
];
const statuses = ['launching', 'running', 'awaiting_clarification', 'done', 'failed', 'cancelled'];

/** Mostly ended runs: enough of them to pass the cap on ended runs. */
const mostlyEnded = [
  'done',
  'failed',
  'cancelled',
  'done',
  'failed',
  'cancelled',
  'running',
  'awaiting_clarification',
];

const step = (ids: number, among: readonly string[] = statuses) =>
  fc.record({
    id: fc.integer({ min: 0, max: ids }),
    started: fc.constantFrom(...stamps),
    status: fc.constantFrom(...among),
  });

function event(s: { id: number; started: string; status: string }, n: number): EventRecord {
  return {
    type: 'sandbox_run_updated',
    agent_id: 'x',
    timestamp: new Date(Date.UTC(2026, 10, 1) + n * 1000).toISOString(),
    payload: {
      turn_id: 'turn-1',
      role: 'Dev',
      agent_handle: 'dev',
      agent_id: 'x',
      coding_agent: 'coder',
      sandbox_id: `sb-${s.id}`,
      task: 'fix',
      status: s.status,
      started_at: s.started,
      question: null,
      audience: null,
      work_item: null,
      owner: null,
      paused_at: null,
    },
  } as unknown as EventRecord;
}

const ids = (runs: ReadonlyArray<{ sandbox_id: string }>) => runs.map((r) => r.sandbox_id);

/** Folds `steps`, and answers whether both reads match the model's. */
function agrees(steps: ReadonlyArray<{ id: number; started: string; status: string }>): boolean {
  const state = emptySandboxesState();
  let changes = true;
  // The straightforward model: a map of runs, capped by dropping the first ended run of a sort by end
  // (these events say no end: their start), ties by id.
  const model = new Map<string, Payloads.SandboxRun>();
  steps.forEach((s, n) => {
    const e = event(s, n);
    const before = JSON.stringify(liveSandboxes(state));
    const changed = applySandboxEvent(state, e);
    if (changed !== (JSON.stringify(liveSandboxes(state)) !== before)) changes = false;
    const run = e.payload as Payloads.SandboxRun;
    model.set(run.sandbox_id, run);
    const ended = [...model.values()].filter((r) => Payloads.terminalSandboxStatuses.has(r.status));
    if (ended.length > 1_000)
      model.delete(
        ended.sort(
          (a, b) => compareStamps(a.started_at, b.started_at) || (a.sandbox_id < b.sandbox_id ? -1 : 1),
        )[0]!.sandbox_id,
      );
  });
  const sorted = [...model.values()].sort((a, b) => compareStamps(b.started_at, a.started_at));
  const live = sorted.filter((r) => !Payloads.terminalSandboxStatuses.has(r.status));
  return (
    changes &&
    JSON.stringify(ids(sandboxRuns(state))) === JSON.stringify(ids(sorted)) &&
    JSON.stringify(ids(liveSandboxes(state))) === JSON.stringify(ids(live))
  );
}

t.test(
  'runs newest started_at first, ties in arrival order, as a sort of the stamps answers; a fold says when the live section changed',
  async (t) => {
    fc.assert(fc.property(fc.array(step(12), { maxLength: 60 }), agrees), { numRuns: 300 });
    t.pass('held');
  },
);

t.test('past the cap the ended run that ended first is dropped, never a live one', async (t) => {
  const steps = fc.array(step(100_000, mostlyEnded), { minLength: 1_500, maxLength: 1_700 });
  fc.assert(fc.property(steps, agrees), {
    numRuns: 4,
  });
  t.pass('held');
});

t.test(
  'an ended run folded past the cap that ended first goes at once and changes nothing; a live one is kept',
  async (t) => {
    const state = emptySandboxesState();
    for (let i = 0; i < 1_000; i++)
      applySandboxEvent(state, event({ id: i, started: '2026-11-02T00:00:00Z', status: 'done' }, i));
    applySandboxEvent(state, event({ id: 4_000, started: '2026-11-02T00:00:00Z', status: 'running' }, 999));
    const before = JSON.stringify(liveSandboxes(state));
    const early = { id: 5_000, started: '2026-11-01T10:00:00Z', status: 'done' };
    t.equal(applySandboxEvent(state, event(early, 1_000)), false, 'no change is reported');
    t.equal(JSON.stringify(liveSandboxes(state)), before, 'the live section is as it was');
    t.notOk(ids(sandboxRuns(state)).includes('sb-5000'), 'the early ended run was not kept');
    const earlyLive = { id: 5_001, started: '2026-11-01T09:00:00Z', status: 'running' };
    t.equal(applySandboxEvent(state, event(earlyLive, 1_001)), true, 'an early live run is kept');
    t.same(ids(liveSandboxes(state)), ['sb-4000', 'sb-5001']);
    t.equal(sandboxRuns(state).length, 1_002, 'every live run and 1,000 ended ones');
  },
);
