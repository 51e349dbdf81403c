/**
 * The in-memory cap of `/sandbox-runs` (ops/sandboxes.md "Retention", ops/read-models.md): every live run is
 * kept however many runs there are and however long it waits; of the ended runs the 1,000 that ended last
 * are kept, the one that ended first leaving first. An event and the 30 s reconcile from the run record
 * apply the same rule, so the list does not change between an event and the reconcile that follows it.
 */
import t from 'tap';
import {
  applySandboxEvent,
  emptySandboxesState,
  liveSandboxes,
  reconcileSandboxes,
  sandboxRuns,
} from '../../../projections/sandboxes/sandboxes.projection.js';
import type { EventRecord } from '../../../schema/index.js';

const base = Date.parse('2026-11-01T00:00:00Z');
const iso = (minutes: number): string => new Date(base + minutes * 60_000).toISOString();

/** A run started at minute `start`; ended at minute `end` (ended runs) or live when `end` is null. */
const run = (id: string, start: number, end: number | null) => ({
  turn_id: 'turn-1',
  role: 'Dev',
  agent_handle: 'dev',
  agent_id: 'agent-dev',
  coding_agent: 'coder',
  sandbox_id: id,
  task: 'fix',
  status: end === null ? 'awaiting_clarification' : 'done',
  started_at: iso(start),
  question: end === null ? 'which branch?' : null,
  audience: null,
  work_item: null,
  owner: null,
  paused_at: end === null ? iso(start + 1) : null,
  ...(end === null ? {} : { ended_at: iso(end), duration_ms: (end - start) * 60_000, summary: 'ok' }),
});

const event = (r: ReturnType<typeof run>, at: string): EventRecord =>
  ({
    type: r.status === 'done' ? 'sandbox_run_completed' : 'sandbox_run_paused',
    agent_id: 'agent-dev',
    timestamp: at,
    payload: r,
  }) as unknown as EventRecord;

const ids = (runs: ReadonlyArray<{ sandbox_id: string }>): string[] => runs.map((r) => r.sandbox_id);

t.test('a live run waiting longer than 1,000 later runs took to end is never dropped', async (t) => {
  const state = emptySandboxesState();
  // The oldest run of all asks a question and waits while 1,000 others start and end after it.
  const waiting = run('sb-waiting', 0, null);
  applySandboxEvent(state, event(waiting, iso(1)));
  for (let i = 0; i < 1_000; i++)
    applySandboxEvent(state, event(run(`sb-${i}`, 10 + i, 20 + i), iso(20 + i)));
  t.same(ids(liveSandboxes(state)), ['sb-waiting'], 'the waiting run is still in the live section');
  t.ok(ids(sandboxRuns(state)).includes('sb-waiting'), 'and in /sandbox-runs');
  t.equal(sandboxRuns(state).length, 1_001, 'every live run and 1,000 ended ones');
  // One more ended run: the ended run that ended first leaves, the live one stays.
  t.equal(
    applySandboxEvent(state, event(run('sb-late', 2_000, 2_001), iso(2_001))),
    false,
    'live set unchanged',
  );
  const listed = ids(sandboxRuns(state));
  t.ok(listed.includes('sb-waiting'), 'the live run is kept');
  t.notOk(listed.includes('sb-0'), 'the ended run that ended first is dropped');
  t.ok(listed.includes('sb-late'), 'the new ended run is kept');
  t.equal(listed.length, 1_001);
});

t.test(
  'the ended run dropped first is the one that ended first, not the one that started first',
  async (t) => {
    const state = emptySandboxesState();
    // Started before every other, ended after every other: the newest end.
    applySandboxEvent(state, event(run('sb-long', 0, 5_000), iso(5_000)));
    for (let i = 0; i < 1_000; i++)
      applySandboxEvent(state, event(run(`sb-${i}`, 10 + i, 20 + i), iso(20 + i)));
    const listed = ids(sandboxRuns(state));
    t.ok(listed.includes('sb-long'), 'the long run that ended last is kept');
    t.notOk(listed.includes('sb-0'), 'the run that ended first is dropped');
  },
);

t.test('more than 1,000 live runs are all kept', async (t) => {
  const state = emptySandboxesState();
  for (let i = 0; i < 1_050; i++) applySandboxEvent(state, event(run(`sb-${i}`, i, null), iso(i + 1)));
  t.equal(liveSandboxes(state).length, 1_050);
  t.equal(sandboxRuns(state).length, 1_050);
});

t.test('the reconcile keeps the same runs as the events did: no flicker between them', async (t) => {
  const records = [run('sb-waiting', 0, null)];
  for (let i = 0; i < 1_100; i++) records.push(run(`sb-${i}`, 10 + i, 20 + i));
  const state = emptySandboxesState();
  reconcileSandboxes(state, records);
  const afterReconcile = ids(sandboxRuns(state));
  t.equal(afterReconcile.length, 1_001, 'the reconcile applies the cap to ended runs');
  t.ok(afterReconcile.includes('sb-waiting'), 'and keeps the live run');
  t.notOk(afterReconcile.includes('sb-99'), 'the ended runs that ended first are not loaded');
  t.ok(afterReconcile.includes('sb-100'));
  // An event of a new ended run, then the reconcile of the record that now holds it too.
  const late = run('sb-late', 3_000, 3_001);
  applySandboxEvent(state, event(late, iso(3_001)));
  const afterEvent = ids(sandboxRuns(state));
  t.equal(reconcileSandboxes(state, [...records, late]), false, 'the live set did not change');
  t.same(ids(sandboxRuns(state)), afterEvent, 'the reconcile lists what the event left');
  // And the other way: an event of a run the record holds already changes nothing in the list.
  applySandboxEvent(state, event(run('sb-500', 510, 520), iso(520)));
  t.same(ids(sandboxRuns(state)), afterEvent, 'an event repeating the record lists the same runs');
});
