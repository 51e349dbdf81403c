import t from 'tap';
import { readModelRoutes, readQuestions, seatRoutes } from '../../http/index.js';
import { Payloads } from '../../schema/index.js';
import { ReadModels } from '../../projections/index.js';
import { cleanTurn, company as companyDoc, startCompany } from '../actors/seat/harness.js';
import { call, OPS, startHarness } from './fixtures/gateway-harness.js';

const json = (body: unknown, auth = true): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...(auth ? { authorization: OPS } : {}) },
  body: JSON.stringify(body),
});

t.test('pause and resume through the gateway reach the seat and are recorded as events', async (t) => {
  const company = await startCompany(t, { script: cleanTurn });
  const h = await startHarness({ routes: seatRoutes({ bus: company.bus }) });
  t.teardown(() => h.gw.close());

  const refused = await call(`${h.base}/agents/ada/pause`, json({ reason: 'x' }, false));
  t.equal(refused.status, 401, 'guarded: a token is required');

  const bad = await call(`${h.base}/agents/ada/pause`, json({ stop_running: 'yes' }));
  t.equal(bad.status, 400);
  t.equal(bad.json?.['error'], 'invalid_body');
  t.match(bad.json?.['problems'], [{ path: 'stop_running', segments: ['stop_running'], kind: 'shape' }]);
  for (const path of ['pause', 'resume']) {
    const typo = await call(`${h.base}/agents/ada/${path}`, json({ stopRunning: true }));
    t.equal(typo.status, 400, `${path}: a misspelled field is refused, not dropped`);
    t.match(typo.json, { error: 'invalid_body', problems: [{ kind: 'unknown_field' }] });
  }
  t.equal(company.runtime.host('ada')?.state(), 'idle', 'nothing was paused');

  const paused = await call(`${h.base}/agents/ada/pause`, json({ reason: 'audit', stop_running: true }));
  t.equal(paused.status, 200);
  t.match(paused.json, { id: 'ada', paused: { by: 'ops', reason: 'audit', stop_running: true } });
  const event = await company.waitFor((e) => e.type === 'agent_paused');
  t.match(Payloads.AgentPaused.parse(event.payload).paused, {
    by: 'ops',
    reason: 'audit',
    stop_running: true,
  });
  t.equal(company.runtime.host('ada')?.state(), 'stopped.paused');
  t.equal(paused.json?.['changed'], true);

  // A second pause applies nothing: it answers the pause in force and says so.
  const again = await call(`${h.base}/agents/ada/pause`, json({ reason: 'again', stop_running: false }));
  t.equal(again.status, 200);
  t.match(again.json, {
    id: 'ada',
    paused: { by: 'ops', reason: 'audit', stop_running: true },
    changed: false,
  });

  const resumed = await call(`${h.base}/agents/ada/resume`, {
    method: 'POST',
    headers: { authorization: OPS },
  });
  t.equal(resumed.status, 200);
  t.match(resumed.json, { id: 'ada', paused: null, changed: true });
  await company.waitFor((e) => e.type === 'agent_resumed');
  t.equal(company.runtime.host('ada')?.state(), 'idle');

  const human = await call(`${h.base}/agents/hu/pause`, json({}));
  t.equal(human.status, 404);
  t.equal(human.json?.['error'], 'not_found');
  t.match(human.json?.['hint'], /a human seat never runs/, 'its own hint, not the event-window one');
});

t.test('needs/clear closes the seat’s open questions, records it, and answers what it cleared', async (t) => {
  const company = await startCompany(t, { script: cleanTurn });
  const h = await startHarness({ routes: seatRoutes({ bus: company.bus }) });
  t.teardown(() => h.gw.close());
  const host = company.runtime.host('ada')!;
  const need = (id: string, question: string) => ({
    id,
    to: 'hu',
    question,
    context: null,
    urgency: 'normal' as const,
    asked_at: new Date().toISOString(),
    turn_id: null,
  });
  await host.recordNeed(need('q1', 'Which branch?'));
  await host.recordNeed(need('q2', 'Which date?'));

  const refused = await call(`${h.base}/agents/ada/needs/clear`, json({}, false));
  t.equal(refused.status, 401, 'guarded: a token is required');
  const bad = await call(`${h.base}/agents/ada/needs/clear`, json({ ids: 'q1' }));
  t.equal(bad.status, 400);
  t.equal(bad.json?.['error'], 'invalid_body');
  t.match(bad.json?.['problems'], [{ path: 'ids' }]);
  const notJson = await call(`${h.base}/agents/ada/needs/clear`, {
    method: 'POST',
    headers: { authorization: OPS },
    body: '{',
  });
  t.equal(notJson.json?.['error'], 'invalid_body');

  const one = await call(`${h.base}/agents/ada/needs/clear`, json({ ids: ['q1', 'nope'] }));
  t.equal(one.status, 200);
  t.same(one.json, { id: 'ada', cleared: ['q1'], open: ['q2'] }, 'a named id not open is not cleared');
  const recorded = await company.waitFor((e) => e.type === 'needs_cleared');
  t.match(Payloads.NeedsClosed.parse(recorded.payload), {
    need_ids: ['q1'],
    by: 'ops',
    remaining: { reason: 'Which date?', audience: 'hu', ids: ['q2'] },
  });
  t.same(
    host.needs().map((n) => n.id),
    ['q2'],
  );

  // No body: every open question.
  const all = await call(`${h.base}/agents/ada/needs/clear`, {
    method: 'POST',
    headers: { authorization: OPS },
  });
  t.same(all.json, { id: 'ada', cleared: ['q2'], open: [] });
  const again = await call(`${h.base}/agents/ada/needs/clear`, json({}));
  t.same(again.json, { id: 'ada', cleared: [], open: [] }, 'nothing open: nothing cleared, nothing recorded');
  t.equal((await company.events('needs_cleared')).length, 2);

  const human = await call(`${h.base}/agents/hu/needs/clear`, json({}));
  t.equal(human.status, 404);
  t.equal(human.json?.['error'], 'not_found');
  t.match(human.json?.['hint'], /a human seat never runs/);
  const unknown = await call(`${h.base}/agents/nobody/needs/clear`, json({}));
  t.equal(unknown.status, 404);
  t.equal(unknown.json?.['error'], 'not_found');
  // A long id is cut in the detail to 80 characters, as the work routes cut theirs.
  const long = 'x'.repeat(5000);
  for (const path of ['pause', 'resume', 'needs/clear']) {
    const refused = await call(`${h.base}/agents/${long}/${path}`, json({}));
    t.equal(refused.status, 404, path);
    const detail = String(refused.json?.['detail']);
    t.ok(
      detail.includes(`"${'x'.repeat(80)}…"`) && detail.length < 200,
      `${path} cut: ${detail.slice(0, 120)}`,
    );
  }
});

t.test(
  'an agent seat of the document that no node answers for is 503 seat_unavailable, not 404',
  async (t) => {
    const company = await startCompany(t, { script: cleanTurn });
    // The gateway node's view of the active document: Ada and Cy are agent seats, Hu a human one.
    const models = new ReadModels();
    models.setCompany(companyDoc(company.llm.baseUrl), 'rev-1');
    const routes = seatRoutes({ bus: company.bus, agentHandle: (id) => models.agentHandle(id) });
    const h = await startHarness({ routes });
    t.teardown(() => h.gw.close());

    // The seats node has not applied Cy yet (or let it go): it answers that it runs no such seat.
    await company.apply(companyDoc(company.llm.baseUrl, { roles: [{ name: 'Hu', kind: 'human', contact: { operator_id: 'ops' } }] })); // prettier-ignore
    const moving = await call(`${h.base}/agents/cy/pause`, json({ reason: 'audit' }));
    t.equal(moving.status, 503);
    t.equal(moving.headers.get('retry-after'), '5');
    t.match(moving.json, { error: 'seat_unavailable', detail: /cy/ });
    t.equal((await call(`${h.base}/agents/ada/pause`, json({}))).status, 200, 'a seat it runs is paused');

    // No seats node answers at all (the only one stopped while the seat moves).
    await company.stopSeats();
    for (const path of ['pause', 'resume', 'needs/clear']) {
      const gone = await call(`${h.base}/agents/ada/${path}`, json({}));
      t.equal(gone.status, 503, path);
      t.equal(gone.json?.['error'], 'seat_unavailable', path);
    }
    for (const seat of ['nobody', 'hu']) {
      const unknown = await call(`${h.base}/agents/${seat}/pause`, json({}));
      t.equal(unknown.status, 404, `${seat}: not an agent seat of the document`);
      t.equal(unknown.json?.['error'], 'not_found');
    }
  },
);

t.test(
  'the agents routes find a seat by its handle in any case and answer with the canonical handle',
  async (t) => {
    const company = await startCompany(t, { script: cleanTurn });
    const models = new ReadModels();
    models.setCompany(companyDoc(company.llm.baseUrl), 'rev-1');
    const routes = [
      ...readModelRoutes(readQuestions(models)),
      ...seatRoutes({ bus: company.bus, agentHandle: (id) => models.agentHandle(id) }),
    ];
    const h = await startHarness({ routes });
    t.teardown(() => h.gw.close());

    for (const id of ['ADA', 'aDa']) {
      const row = await call(`${h.base}/agents/${id}`);
      t.equal(row.status, 200, `GET /agents/${id}`);
      t.match(row.json, { id: 'ada', role: 'Ada' });
    }
    const memory = await call(`${h.base}/agents/ADA/memory`);
    t.equal(memory.status, 200);
    t.match(memory.json, { handle: 'ada' });

    const paused = await call(`${h.base}/agents/ADA/pause`, json({ reason: 'audit' }));
    t.equal(paused.status, 200);
    t.match(paused.json, { id: 'ada', paused: { reason: 'audit' }, changed: true });
    t.equal(company.runtime.host('ada')?.state(), 'stopped.paused');
    const cleared = await call(`${h.base}/agents/Ada/needs/clear`, json({}));
    t.same(cleared.json, { id: 'ada', cleared: [], open: [] });
    const resumed = await call(`${h.base}/agents/AdA/resume`, json({}));
    t.match(resumed.json, { id: 'ada', paused: null, changed: true });

    // A human seat is not found in any case; neither is a seat no case names.
    for (const id of ['HU', 'NOBODY']) {
      t.equal((await call(`${h.base}/agents/${id}`)).status, 404, `GET /agents/${id}`);
      t.equal((await call(`${h.base}/agents/${id}/pause`, json({}))).status, 404, `pause ${id}`);
    }
  },
);
