/**
 * `/integrations` is the `integrations` history question: the REST route, `/query/integrations` and the
 * socket's query channel give one answer, with `coverage`, under the route's read posture.
 */
import t, { type Test } from 'tap';
import { pino } from 'pino';
import { ensureCatalogue, openMemoryBus } from '../../../bus/index.js';
import {
  Arrivals,
  integrationsQuestions,
  integrationsRoutes,
  queryRoutes,
  relayKeySet,
  webhookRoutes,
  webhookSettingsFrom,
  type AuthSettings,
} from '../../../http/index.js';
import { startEvents } from '../../../scripts/events-wiring.js';
import { followIntegrations } from '../../../scripts/integrations-view.js';
import { dashboard } from '../fixtures/events-node.js';
import { call, OPS, openAuth, startHarness } from '../fixtures/gateway-harness.js';
import { companyDocument, SECRETS } from './fixtures/company.js';
import { sign_ } from './fixtures/signers.js';

const coverage = { nodes: [{ id: 'node-0', answered: true }], complete: true };

/** The events subsystem (registry and socket hub) plus the receivers and `/integrations` on one gateway. */
async function startNode(t: Test, auth: AuthSettings = openAuth) {
  const bus = await openMemoryBus();
  await ensureCatalogue(bus);
  const events = await startEvents({
    bus,
    node: 'node-0',
    historySeconds: 30 * 86_400,
    health: () => ({ status: 'ok' }),
    logger: pino({ level: 'silent' }),
    healthIntervalMs: 60_000,
  });
  const settings = webhookSettingsFrom('rev-1', companyDocument(), {
    monitorToken: SECRETS.monitorToken,
    wikiToken: SECRETS.wikiToken,
    relayKeySetUrl: null,
  });
  const arrivals = new Arrivals({ bus, nodeId: 'node-0' });
  const view = await followIntegrations({ bus });
  const questions = integrationsQuestions({
    settings: () => settings,
    arrivals: (surface) => view.arrivals(surface),
    sync: async () => {
      await arrivals.flush();
      await view.caughtUp();
    },
    nodeId: 'node-0',
    publicBaseUrl: () => 'https://svc.example',
    publicListener: false,
    coverage: () => coverage,
  });
  events.addQuestions(questions);
  const h = await startHarness({
    auth,
    routes: [
      ...webhookRoutes({
        bus,
        settings: () => settings,
        configured: () => true,
        arrivals,
        relayKeys: (url) => relayKeySet(url),
      }),
      ...integrationsRoutes(questions),
      ...queryRoutes(events.questions),
    ],
    stream: events.hub,
  });
  t.teardown(async () => {
    await h.gw.close();
    await events.stop();
    await view.stop();
    await bus.close();
  });
  const body = JSON.stringify({ action: 'assigned', issue: { number: 1, assignees: [{ login: 'cy' }] } });
  const delivered = await fetch(`${h.base}/webhooks/codehost-a`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...sign_.codehostA(SECRETS.codehostA, body, 'd-1') },
    body,
  });
  t.equal(delivered.status, 200, 'one delivery accepted');
  return { h, ws: h.base.replace('http:', 'ws:') };
}

t.test('GET /integrations and /query/integrations give the same answer, with coverage', async (t) => {
  const { h } = await startNode(t);
  const rest = await call(`${h.base}/integrations`);
  const query = await call(`${h.base}/query/integrations`);
  t.equal(rest.status, 200);
  t.equal(query.status, 200);
  t.same(query.json, rest.json, 'one answer');
  const body = rest.json as Record<string, unknown>;
  t.same(Object.keys(body), ['node', 'revision', 'surfaces', 'landing', 'coverage']);
  t.match(body, { node: 'node-0', revision: 'rev-1', coverage });
  const surfaces = body['surfaces'] as Array<Record<string, unknown>>;
  t.match(
    surfaces.find((s) => s['surface'] === 'codehost-a'),
    {
      secret_present: true,
      public_url: 'https://svc.example/webhooks/codehost-a',
      arrivals: { accepted: 1 },
    },
  );
  t.notOk(JSON.stringify(body).includes(SECRETS.codehostA), 'never a secret');
});

t.test('the socket query channel answers integrations as the route does', async (t) => {
  const { h, ws } = await startNode(t);
  const d = await dashboard(`${ws}/ws/stream`);
  t.teardown(() => d.client.close());
  await d.next((f) => f.kind === 'snapshot');
  d.client.send(JSON.stringify({ kind: 'query', id: 1, what: 'integrations' }));
  const result = await d.next((f) => f.kind === 'result' && f.data.id === 1);
  t.equal(result.data.what, 'integrations');
  t.same(result.data.data, (await call(`${h.base}/integrations`)).json);
  t.same(result.data.data.coverage, coverage);
});

t.test('integrations keeps the read posture: a token only when anonymous reads are off', async (t) => {
  const { h } = await startNode(t, { ...openAuth, allowAnonymousRead: false });
  for (const path of ['/integrations', '/query/integrations']) {
    t.equal((await call(`${h.base}${path}`)).status, 401, `${path} without a token`);
    t.equal((await call(`${h.base}${path}`, { headers: { authorization: OPS } })).status, 200, path);
  }
});
