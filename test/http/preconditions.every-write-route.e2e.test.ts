/**
 * Every write route either checks `If-Match` / `If-None-Match` (RFC 9110 13.1) or refuses them: a
 * precondition a route ignored would let a client believe a check was made that never was. Walks every
 * write route a built `svc serve` mounts (its `gateway_routes` debug line), so a route added later is held
 * to it without touching this test. A route with no version to compare (a seat's pause, a saved view, a
 * secret, a backup) answers 400 `unsupported_precondition` naming the header, with nothing done; the
 * routes that honour a header are listed below, and are held only to not refusing it here (their own
 * tests check what they make of it). The webhook receivers are left out: their senders are vendors, whose
 * deliveries carry no precondition on this node's state.
 */
import t from 'tap';
import { applyNativeWork, nativeBackends, nativeWorkCompany } from '../harness/native-work.js';
import { startNode, TOKEN } from '../harness/serve-node.js';

type Json = Record<string, unknown>;
const auth = { authorization: `Bearer ${TOKEN}` };
const KEYRING = `secrets: {active_key_id: k1, keys: [{id: k1, material: ${Buffer.alloc(32, 7).toString('base64')}}]}`;

const both = ['if-match', 'if-none-match'] as const;
const spelled = { 'if-match': /If-Match/, 'if-none-match': /If-None-Match/ };
/** The write routes that read a precondition, by `METHOD pattern`, with the headers each honours. */
const honours: Readonly<Record<string, readonly string[]>> = {
  'PUT /config': both,
  'PATCH /config': both,
  'PUT /config/:kind/:id': both,
  'POST /config/revisions/:id/revert': both,
  'POST /config/reload': both,
  'POST /setup/integrations/:kind/inputs': ['if-match'],
  'DELETE /setup/integrations/:kind': ['if-match'],
  'POST /work': both,
  'PATCH /work/:id': both,
  'POST /work/:id/move': both,
  'POST /work/:id/comments': both,
  'POST /work/:id/purge': both,
  'PUT /work/files/:project/*': both,
  'DELETE /work/files/:project/*': both,
  'POST /pages': both,
  'POST /pages/*': both,
  'PATCH /pages/*': both,
  'DELETE /pages/*': both,
};

/** Path parameter values each route serves; any other is `someone`. */
const fillers: Readonly<Record<string, string>> = {
  ':kind': 'roles',
  ':id': 'ENG-1',
  ':project': 'ENG',
  ':signal': 'traces',
  ':tool': 'work_list',
  ':view': 'someone',
};

const pathOf = (pattern: string): string =>
  pattern
    // A setup kind is an integration's, a config kind an entity's.
    .replace(/^\/setup\/integrations\/:kind/, '/setup/integrations/monitor')
    .split('/')
    .map((s) => (s === '*' ? 'ENG/Page/comments' : s.startsWith(':') ? (fillers[s] ?? 'someone') : s))
    .join('/');

/** Reached only with a live coding run's path token: a bogus one is 401 before anything else is read. */
const runToken = new Set(['/mcp/:token', '/otlp/:token/v1/:signal']);

t.test('every write route honours a precondition or refuses it, never ignores it', async (t) => {
  const node = await startNode(t, `debug: true\n${nativeBackends}\n${KEYRING}`);
  await applyNativeWork(t, [node.url], nativeWorkCompany(), 'every write route');
  const listed = await node.run.waitForLog((l) => l['event'] === 'gateway_routes');
  const writes = (listed['routes'] as string[])
    .map((r) => r.split(' ') as [string, string])
    .filter(([method, pattern]) => method !== 'GET' && !pattern.startsWith('/webhooks/'));
  t.ok(writes.length > 40, `every write route is asked (${writes.length})`);
  const seen = new Set<string>();

  for (const [method, pattern] of writes) {
    const route = `${method} ${pattern}`;
    seen.add(route);
    for (const header of both) {
      const res = await fetch(`${node.url}${pathOf(pattern)}`, {
        method,
        headers: { ...auth, [header]: '"999"' },
        redirect: 'manual',
      });
      const raw = await res.text();
      let body: Json = {};
      try {
        body = JSON.parse(raw) as Json;
      } catch {
        // not a JSON answer
      }
      const what = `${route} with ${header}`;
      if (runToken.has(pattern)) {
        t.equal(res.status, 401, `${what}: a bogus run token is refused first`);
        continue;
      }
      if (honours[route]?.includes(header)) {
        t.not(
          body['error'],
          'unsupported_precondition',
          `${what}: read (${res.status} ${String(body['error'])})`,
        );
        // No write left a version 999: an If-Match naming it is never taken (an If-None-Match naming it
        // may be, rightly).
        if (header === 'if-match') t.ok(res.status >= 400, `${what}: not taken (${res.status})`);
        continue;
      }
      t.equal(res.status, 400, `${what}: refused (${raw.slice(0, 160)})`);
      t.equal(body['error'], 'unsupported_precondition', `${what}: unsupported_precondition`);
      t.match(body['detail'], spelled[header], `${what}: names the header`);
    }
  }
  for (const route of Object.keys(honours)) t.ok(seen.has(route), `${route} is served`);

  // Without a precondition the same routes are unrefused: a seat paused, a view saved.
  const pause = await fetch(`${node.url}/agents/ada/pause`, { method: 'POST', headers: auth });
  t.not(((await pause.json()) as Json)['error'], 'unsupported_precondition');
  // An empty header names no precondition (as on the creates): not refused.
  const empty = await fetch(`${node.url}/work/views/saved`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json', 'if-match': '' },
    body: JSON.stringify({ name: 'Mine', query: {} }),
  });
  t.not(((await empty.json()) as Json)['error'], 'unsupported_precondition');
});

t.test("setup inputs honour an If-Match header as the body's if_match", async (t) => {
  const node = await startNode(t, KEYRING);
  const put = await fetch(`${node.url}/config`, {
    method: 'PUT',
    headers: { ...auth, 'content-type': 'application/json', 'x-summary': 'first' },
    body: JSON.stringify({ name: 'Acme', timezone: 'UTC' }),
  });
  const active = ((await put.json()) as Json)['revision_id'] as string;
  const inputs = (headers: Record<string, string>, body: Json) =>
    fetch(`${node.url}/setup/integrations/monitor/inputs`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ generate: ['webhook_token'], ...body }),
    });
  const stale = await inputs({ 'if-match': '"3f0b1d9e-0000-4000-8000-000000000000"' }, {});
  t.equal(stale.status, 409, 'a stale If-Match header is refused, as a stale if_match');
  t.equal(((await stale.json()) as Json)['error'], 'revision_advanced');
  const differ = await inputs({ 'if-match': `"${active}"` }, { if_match: 'another' });
  t.equal(differ.status, 400, 'a header and a body naming different revisions');
  t.equal(((await differ.json()) as Json)['error'], 'bad_params');
  const secrets = (await (await fetch(`${node.url}/secrets`, { headers: auth })).json()) as Json;
  t.same(secrets['secrets'], [], 'nothing sealed by either refusal');
  const taken = await inputs({ 'if-match': `"${active}"` }, {});
  t.ok(taken.status < 300, `the active revision's If-Match is taken (${taken.status})`);
});
