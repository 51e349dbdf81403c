/**
 * `/sandbox-runs` shows what a run's telemetry receiver accepted (`telemetry`: exports per signal, and
 * spans), read from the durable run record: the record's counts reach each listed run through the
 * reconcile, an event of the run (which carries no counts) keeps the counts known, and a run first seen
 * at its start has accepted nothing yet.
 */
import t from 'tap';
import { listedRun } from '../../../actors/sandbox/index.js';
import {
  applySandboxEvent,
  emptySandboxesState,
  liveSandboxes,
  reconcileSandboxes,
  sandboxRuns,
} from '../../../projections/sandboxes/sandboxes.projection.js';
import type { EventRecord, SandboxRunRecord } from '../../../schema/index.js';

const publicPart = (id: string, status: string) => ({
  turn_id: 'turn-1',
  role: 'Dev',
  agent_handle: 'dev',
  agent_id: 'agent-dev',
  coding_agent: 'coder',
  sandbox_id: id,
  task: 'fix',
  status,
  started_at: '2026-11-01T10:00:00Z',
  question: null,
  audience: null,
  work_item: null,
  owner: null,
  paused_at: null,
});

const record = (id: string, status: string, spans: number): SandboxRunRecord =>
  ({
    ...publicPart(id, status),
    node: 'node-0',
    trace_id: 'a'.repeat(32),
    span_id: 'b'.repeat(16),
    token_sha256: 'c'.repeat(64),
    workdir: '/tmp/run',
    pid: 4242,
    answer: null,
    telemetry: { traces: 2, metrics: 1, logs: 3, spans },
    updated_at: '2026-11-01T10:05:00Z',
  }) as SandboxRunRecord;

const event = (type: string, id: string, status: string, at: string): EventRecord =>
  ({ type, agent_id: 'agent-dev', timestamp: at, payload: publicPart(id, status) }) as unknown as EventRecord;

t.test(
  'a listed run carries its record telemetry, never its token digest, directory or process',
  async (t) => {
    const listed = listedRun(record('sb-1', 'running', 7));
    t.same(listed.telemetry, { traces: 2, metrics: 1, logs: 3, spans: 7 });
    for (const hidden of ['token_sha256', 'workdir', 'pid', 'answer', 'node'])
      t.notOk(hidden in listed, `${hidden} is not listed`);
  },
);

t.test('/sandbox-runs shows the accepted telemetry counts of each run', async (t) => {
  const state = emptySandboxesState();
  applySandboxEvent(state, event('sandbox_run_started', 'sb-new', 'launching', '2026-11-01T10:00:00Z'));
  t.same(
    sandboxRuns(state)[0]?.telemetry,
    { traces: 0, metrics: 0, logs: 0, spans: 0 },
    'a run first seen at its start has accepted nothing yet',
  );

  reconcileSandboxes(state, [listedRun(record('sb-1', 'running', 7)), listedRun(record('sb-2', 'done', 0))]);
  t.same(
    sandboxRuns(state).map((r) => [r.sandbox_id, r.telemetry]),
    [
      ['sb-1', { traces: 2, metrics: 1, logs: 3, spans: 7 }],
      ['sb-2', { traces: 2, metrics: 1, logs: 3, spans: 0 }],
    ],
    'the counts come from the run record',
  );
  t.same(liveSandboxes(state)[0]?.telemetry, { traces: 2, metrics: 1, logs: 3, spans: 7 }, 'live runs too');

  applySandboxEvent(
    state,
    event('sandbox_run_paused', 'sb-1', 'awaiting_clarification', '2026-11-01T10:06:00Z'),
  );
  t.same(
    sandboxRuns(state).find((r) => r.sandbox_id === 'sb-1')?.telemetry,
    { traces: 2, metrics: 1, logs: 3, spans: 7 },
    'an event of the run keeps the counts the record gave',
  );
  t.equal(sandboxRuns(state).find((r) => r.sandbox_id === 'sb-1')?.status, 'awaiting_clarification');
});
