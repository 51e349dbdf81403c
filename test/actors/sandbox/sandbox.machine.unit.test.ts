import t from 'tap';
import { stepRun, type RunEvent } from '../../../actors/sandbox/index.js';
import type { SandboxRunRecord } from '../../../schema/index.js';

const at = (s: number): string => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();

const fresh: SandboxRunRecord = {
  turn_id: 'turn-1',
  role: 'Bob',
  agent_handle: 'bob',
  agent_id: 'agent-bob',
  coding_agent: 'fake-coder',
  sandbox_id: 'sb-1',
  task: 'fix the bug',
  status: 'launching',
  started_at: at(0),
  question: null,
  audience: null,
  work_item: null,
  owner: null,
  paused_at: null,
  node: 'node-0',
  trace_id: 'a'.repeat(32),
  span_id: 'b'.repeat(16),
  token_sha256: 'c'.repeat(64),
  workdir: null,
  pid: null,
  answer: null,
  telemetry: { traces: 0, metrics: 0, logs: 0, spans: 0 },
  updated_at: at(0),
  owed: null,
};

/** Given a stored record (or none), when these events arrive: the records stored and events published. */
function when(given: SandboxRunRecord | null, ...events: RunEvent[]) {
  let run = given;
  const emitted: Array<string | null> = [];
  for (const event of events) {
    const step = stepRun(run, event);
    if (step.run === null) {
      emitted.push('refused');
      continue;
    }
    run = step.run;
    emitted.push(step.emit);
  }
  return { run, emitted };
}

t.test('a run is launched, asks, is answered and finishes done, with one event per move', async (t) => {
  const { run, emitted } = when(
    null,
    { type: 'run.launch', run: fresh },
    { type: 'run.launched', pid: 42, workdir: '/tmp/x', at: at(1) },
    { type: 'run.asked', question: 'Which branch?', audience: 'bob', at: at(2) },
    { type: 'run.answered', answer: 'main', at: at(3) },
    { type: 'run.finished', summary: 'fixed', total_tokens: 12, at: at(10) },
  );
  t.same(emitted, [
    'sandbox_run_started',
    'sandbox_run_updated',
    'sandbox_run_paused',
    'sandbox_run_updated',
    'sandbox_run_completed',
  ]);
  t.equal(run?.status, 'done');
  t.equal(run?.summary, 'fixed');
  t.equal(run?.duration_ms, 10_000);
  t.equal(run?.question, 'Which branch?', 'the last question stays on the record');
  t.equal(run?.paused_at, null);
});

t.test(
  'a question moves the run to awaiting_clarification with paused_at; the answer to resumed',
  async (t) => {
    const launched = when(
      null,
      { type: 'run.launch', run: fresh },
      { type: 'run.launched', pid: 1, workdir: 'w', at: at(1) },
    ).run;
    const asked = when(launched, { type: 'run.asked', question: 'Q?', audience: null, at: at(5) }).run;
    t.equal(asked?.status, 'awaiting_clarification');
    t.equal(asked?.paused_at, at(5));
    const answered = when(asked, { type: 'run.answered', answer: 'A', at: at(6) }).run;
    t.equal(answered?.status, 'resumed');
    t.equal(answered?.answer, 'A');
    t.equal(answered?.paused_at, null);
    // A resumed run may ask again.
    t.equal(
      when(answered, { type: 'run.asked', question: 'Q2?', audience: null, at: at(7) }).run?.status,
      'awaiting_clarification',
    );
  },
);

t.test('an answer without an open question, and anything after the end, is refused', async (t) => {
  const launched = when(
    null,
    { type: 'run.launch', run: fresh },
    { type: 'run.launched', pid: 1, workdir: 'w', at: at(1) },
  ).run;
  t.same(when(launched, { type: 'run.answered', answer: 'A', at: at(2) }).emitted, ['refused']);
  const failed = when(launched, { type: 'run.failed', error: 'exited with code 3', at: at(4) });
  t.same(failed.emitted, ['sandbox_run_failed']);
  t.equal(failed.run?.error, 'exited with code 3');
  t.same(
    when(
      failed.run,
      { type: 'run.finished', summary: 'x', total_tokens: 0, at: at(5) },
      { type: 'run.telemetry', counts: { traces: 1, metrics: 0, logs: 0, spans: 1 }, at: at(5) },
      { type: 'run.asked', question: 'late', audience: null, at: at(5) },
    ).emitted,
    ['refused', 'refused', 'refused'],
  );
  t.same(
    when(null, { type: 'run.launched', pid: 1, workdir: 'w', at: at(1) }).emitted,
    ['refused'],
    'nothing before launch',
  );
});

t.test('telemetry counts on a live run without publishing an event', async (t) => {
  const launched = when(null, { type: 'run.launch', run: fresh }).run;
  const { run, emitted } = when(
    launched,
    { type: 'run.telemetry', counts: { traces: 1, metrics: 0, logs: 0, spans: 3 }, at: at(1) },
    { type: 'run.telemetry', counts: { traces: 0, metrics: 1, logs: 0, spans: 0 }, at: at(2) },
  );
  t.same(emitted, [null, null]);
  t.same(run?.telemetry, { traces: 1, metrics: 1, logs: 0, spans: 3 });
  t.equal(run?.status, 'launching');
});
