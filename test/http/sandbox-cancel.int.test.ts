/**
 * `POST /sandbox-runs/{id}/cancel` (ops/sandboxes.md): an operator stops a live coding run. Its process
 * tree is stopped, it ends `cancelled` with `sandbox_run_cancelled`, and the turn waiting in `run_sandbox`
 * is released with a result that says so. A second cancel answers 200 unchanged; an unknown run is 404, one
 * that ended otherwise 409 `run_ended`; the route needs the operator's token.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { launchBobHolding, startSandboxCompany } from '../actors/sandbox/harness.js';
import { groupAlive } from '../harness/proc.js';
import { until } from '../harness/until.js';

const OPS = 'ops-token-0123456789';

t.test('an operator cancels a live run: killed, recorded cancelled, the waiting turn released', async (t) => {
  const h = await startSandboxCompany(t, { script: [], env: { FAKE_HOLD: '1' } });
  const cancel = (id: string, body?: unknown, token: string | null = OPS) =>
    fetch(`${h.base}/sandbox-runs/${id}/cancel`, {
      method: 'POST',
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  // The turn's side: run_sandbox waits on the run it launched.
  const waiting = h.tools.router.call(
    {
      seat: 'bob',
      agent_id: 'agent-bob',
      turn_id: 'turn-1',
      trace: { trace_id: 'a'.repeat(32), parent_span_id: null },
      call_id: 'turn-1/execute.0/0.0',
    },
    { name: 'run_sandbox', arguments: { task: 'hold until told' } },
  );
  const run = await h.waitRun((r) => r.agent_handle === 'bob' && r.status === 'running');
  t.ok(groupAlive(run.pid!), 'the agent runs');

  t.equal((await cancel(run.sandbox_id, {}, null)).status, 401, 'no token: refused');
  t.equal(h.sandboxes.records.get(run.sandbox_id)?.status, 'running', 'and nothing happened');
  const bad = await cancel(run.sandbox_id, { reason: 5 });
  t.equal(bad.status, 400);
  t.match(await bad.json(), { error: 'invalid_body' });
  // A misspelt field is refused, not read as a cancel without a reason.
  const typo = await cancel(run.sandbox_id, { resaon: 'wrong task' });
  t.equal(typo.status, 400);
  t.match(await typo.json(), { error: 'invalid_body', problems: [{ kind: 'unknown_field' }] });
  t.equal(h.sandboxes.records.get(run.sandbox_id)?.status, 'running', 'the run goes on');
  const unknown = await cancel('no-such-run');
  t.equal(unknown.status, 404);
  t.match(await unknown.json(), { error: 'not_found', detail: 'No coding run "no-such-run".' });
  const long = await cancel('x'.repeat(5_000));
  t.equal(long.status, 404);
  t.equal(
    ((await long.json()) as { detail: string }).detail,
    `No coding run "${'x'.repeat(80)}…".`,
    'a long id is quoted cut to 80 characters',
  );

  const first = await cancel(run.sandbox_id, { reason: 'wrong task' });
  t.equal(first.status, 200);
  t.match(await first.json(), {
    changed: true,
    run: { sandbox_id: run.sandbox_id, status: 'cancelled', error: 'cancelled by ops: wrong task' },
  });
  await until(
    () => Promise.resolve(groupAlive(run.pid!)),
    (alive) => !alive,
    { timeoutMs: 10_000, everyMs: 25 },
  );
  t.pass('the process tree is gone');
  const result = await waiting;
  t.equal(result.is_error, true);
  t.match(result.content[0], { text: /was cancelled by ops: wrong task/ }, 'the waiting call is released');

  const again = await cancel(run.sandbox_id);
  t.equal(again.status, 200, 'cancelling again is no error');
  t.match(await again.json(), { changed: false, run: { status: 'cancelled' } });
  const events = await h.events('sandbox_run_cancelled');
  t.equal(events.length, 1, 'one sandbox_run_cancelled');
  t.match(events[0]?.payload, { sandbox_id: run.sandbox_id, status: 'cancelled' });

  // A run that ended done cannot be cancelled.
  const done = await launchBobHolding(h, 'sb-done', 'b', 'turn-2');
  writeFileSync(join(done.workdir!, '..', 'control', 'release'), '');
  await h.waitRun((r) => r.sandbox_id === 'sb-done' && r.status === 'done');
  const ended = await cancel('sb-done');
  t.equal(ended.status, 409);
  t.match(await ended.json(), { error: 'run_ended' });
  t.equal(h.sandboxes.records.get('sb-done')?.status, 'done', 'the done run stays done');
});

t.test('a seat cancels its own run with cancel_sandbox, and only its own', async (t) => {
  const h = await startSandboxCompany(t, { script: [], env: { FAKE_HOLD: '1' } });
  t.ok(
    h.tools.router.toolsFor('bob').some((e) => e.name === 'cancel_sandbox'),
    'offered to a seat with a sandbox',
  );
  t.notOk(
    h.tools.router.toolsFor('ada').some((e) => e.name === 'cancel_sandbox'),
    'not to one without',
  );
  const run = await launchBobHolding(h, 'sb-own', 'c');
  const call = (seat: string, args: Record<string, unknown>) =>
    h.tools.router.call(
      { seat, agent_id: `agent-${seat}`, turn_id: 'turn-2', call_id: 'turn-2/execute.0/0.0' },
      { name: 'cancel_sandbox', arguments: args },
    );
  const other = await call('ada', { sandbox_id: 'sb-own' });
  t.equal(other.is_error, true, 'another seat cannot cancel it');
  t.equal(h.sandboxes.records.get('sb-own')?.status, 'running');
  const own = await call('bob', { sandbox_id: 'sb-own', reason: 'plan changed' });
  t.equal(own.is_error, false);
  t.match(own.content[0], { text: /is cancelled/ });
  t.match(h.sandboxes.records.get('sb-own'), {
    status: 'cancelled',
    error: 'cancelled by bob: plan changed',
  });
  await until(
    () => Promise.resolve(groupAlive(run.pid!)),
    (alive) => !alive,
    { timeoutMs: 10_000, everyMs: 25 },
  );
  t.pass('its processes are gone');
});
