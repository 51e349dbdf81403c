/**
 * What a coding run says about itself leaves the run without the seat's sandbox secrets: the values of
 * `sandbox.env` entries whose name signals a credential, and the values `${VAR}` references resolve to,
 * are scrubbed from a run's question and error before they are stored, published or shown to the seat —
 * as config reads redact them. (A failing setup step's stderr is the usual carrier: `git clone` prints its URL.)
 */
import t from 'tap';
import { startSandboxCompany } from './harness.js';

const named = 'sekret-value-123';
const referenced = 'ref-secret-456';
process.env['SVC_TEST_SANDBOX_REF'] = referenced;
const env = {
  API_TOKEN: named,
  GIT_URL: 'https://x:${SVC_TEST_SANDBOX_REF}@example.invalid/repo.git',
};
const launch = (id: string) => ({
  sandbox_id: id,
  seat: 'bob',
  role: 'Bob',
  agent_id: 'agent-bob',
  turn_id: 'turn-1',
  trace_id: 'e'.repeat(32),
  task: 'work',
  work_item: null,
  coding_agent: 'fake',
});
const clean = (text: string): boolean => !text.includes(named) && !text.includes(referenced);

t.test('a failing setup step’s stderr is stored and shown without the sandbox’s secrets', async (t) => {
  const h = await startSandboxCompany(t, {
    script: [],
    env,
    setup: ['echo "fatal: could not read $GIT_URL with $API_TOKEN" >&2; exit 1'],
  });
  const result = await h.tools.router.call(
    { seat: 'bob', agent_id: 'agent-bob', turn_id: 'turn-1', call_id: 'turn-1/execute.0/0.0' },
    { name: 'run_sandbox', arguments: { task: 'clone and build' } },
  );
  const text = result.content.map((c) => ('text' in c ? c.text : '')).join('');
  t.match(text, /failed: setup step .* could not read https:\/\/x:\[redacted\]@example\.invalid/);
  t.ok(clean(text), 'the seat reads no secret');
  const run = await h.waitRun((r) => r.status === 'failed');
  t.match(run.error, /\[redacted\]/);
  t.ok(clean(JSON.stringify(run)), 'the stored record holds no secret');
  const failed = await h.waitFor((e) => e.type === 'sandbox_run_failed');
  t.ok(clean(JSON.stringify(failed)), 'the event holds no secret');
});

t.test('a question naming a secret is stored and published without it', async (t) => {
  const h = await startSandboxCompany(t, {
    script: [],
    env: { ...env, FAKE_QUESTION: `Push with ${named} or ${referenced}?` },
  });
  const desk = h.tools.sandbox;
  await desk.launch({ ...launch('sb-ask'), settings: desk.settingsFor('bob')!.settings });
  const run = await h.waitRun((r) => r.sandbox_id === 'sb-ask' && r.status === 'awaiting_clarification');
  t.equal(run.question, 'Push with [redacted] or [redacted]?');
  const paused = await h.waitFor((e) => e.type === 'sandbox_run_paused');
  t.ok(clean(JSON.stringify(paused)), 'the event holds no secret');
  await desk.answer('sb-ask', 'bob', 'neither');
  const done = await h.waitRun((r) => r.sandbox_id === 'sb-ask' && r.status === 'done');
  t.ok(clean(JSON.stringify(done)), 'nor the finished record');
});
