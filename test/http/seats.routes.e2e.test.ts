import t from 'tap';
import { seatRoutes } from '../../http/index.js';
import { Payloads } from '../../schema/index.js';
import { cleanTurn, startCompany } from '../actors/seat/harness.js';
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
