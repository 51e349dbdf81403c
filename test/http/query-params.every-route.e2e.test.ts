/**
 * Every JSON read route declares the query parameters it reads: any other is 400 `bad_params` naming it,
 * with the one meant for a near miss and, in the hint, what the route reads (spec Errors: "bad parameter
 * on `/work/projects/{key}` and similar"), so `/events?seet=ada` is not the whole feed. Walks every `GET`
 * route a built `svc serve` mounts (its `gateway_routes` debug line), so a route added later is held to it
 * without touching this test. Left lenient, on purpose: the probes (load balancers add their own
 * parameters), `/metrics` (a scraper's), the dashboard shell and its assets, the webhook landing pages (the
 * vendor's redirect carries the vendor's), and `/ws/stream` (its handshake is checked, not its query).
 */
import t from 'tap';
import { applyNativeWork, nativeWorkCompany } from '../harness/native-work.js';
import { startNode, TOKEN } from '../harness/serve-node.js';

type Json = Record<string, unknown>;
const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const auth = { authorization: `Bearer ${TOKEN}` };

/** Routes that take any parameter (each with why), checked here to stay lenient. */
const lenient: Readonly<Record<string, string>> = {
  '/': 'redirects to the dashboard',
  '/dashboard': 'the dashboard shell',
  '/dashboard/': 'redirects to the shell',
  '/favicon.ico': 'a static asset',
  '/static/*': 'static assets',
  '/metrics': 'a Prometheus scraper may add its own parameters',
  '/ws/stream': 'a WebSocket: the handshake is checked, not the query',
  '/webhooks/chat-oauth': "the chat vendor's redirect carries its own parameters",
  '/webhooks/codehost-a-app': "the code host's redirect carries its own parameters",
};

/** Path parameter values a route serves (some refuse others as unserved); any other is `someone`. */
const fillers: Readonly<Record<string, string>> = {
  ':what': 'schedules',
  ':kind': 'roles',
  ':id': 'ENG-1',
  ':key': 'ENG',
};

/** A concrete path for a pattern: every parameter and the wildcard filled with plain values. */
const pathOf = (pattern: string): string =>
  pattern
    .split('/')
    .map((s) => (s === '*' ? 'ENG/Page' : s.startsWith(':') ? (fillers[s] ?? 'someone') : s))
    .join('/');

/** Requests the dashboard, `svc` and the docs make: each answered 200 (spelled right, a parameter is read). */
const answered = [
  '/events?limit=50&feed_only=true&category=task&agent_id=ada&type=TaskCreated',
  '/events?limit=5&seat=ada',
  '/events/trace/0af7651916cd43dd8448eb211c80319c',
  '/agents',
  '/agents/activity?days=7',
  '/tokens/breakdown?since_days=7&agent_role=ada&recent_turns=5',
  '/tokens/series?bucket=day&band=phase&buckets=7',
  '/schedules',
  '/org',
  '/tools',
  '/budgets',
  '/sandbox-runs',
  '/fleet',
  '/fleet/broker',
  '/stream/snapshot',
  '/viewer',
  '/access',
  '/credential-pool',
  '/backups',
  '/integrations',
  '/mcp-servers',
  '/query',
  '/query/schedules',
  '/query/events?limit=5&feed_only=true',
  '/query/tokens_series?bucket=day&band=phase',
  '/query/config_audit?limit=50',
  '/config?format=yaml',
  '/config/revisions?limit=5&offset=0',
  '/secrets',
  '/work?project=ENG&limit=5',
];

t.test('every GET route refuses a parameter it does not read and reads those it declares', async (t) => {
  const node = await startNode(t, 'debug: true\ntracker: {backend: native}\nknowledge: {backend: native}');
  await applyNativeWork(t, [node.url], nativeWorkCompany(), 'every route');
  const listed = await node.run.waitForLog((l) => l['event'] === 'gateway_routes');
  const gets = (listed['routes'] as string[])
    .map((r) => r.split(' ') as [string, string])
    .filter(([method]) => method === 'GET')
    .map(([, pattern]) => pattern);
  t.ok(gets.length > 60, `every GET route is asked (${gets.length})`);
  const get = async (path: string): Promise<{ status: number; body: Json }> => {
    const res = await fetch(`${node.url}${path}`, { headers: auth, redirect: 'manual' });
    const raw = await res.text();
    let body: Json = {};
    try {
      body = JSON.parse(raw) as Json;
    } catch {
      // HTML or the metrics text: no JSON refusal in it
    }
    return { status: res.status, body };
  };

  for (const pattern of gets) {
    const path = pathOf(pattern);
    const refused = await get(`${path}?nonesuch_param=1`);
    if (Object.hasOwn(lenient, pattern)) {
      t.not(refused.body['error'], 'bad_params', `GET ${pattern} takes any parameter: ${lenient[pattern]}`);
      continue;
    }
    const what = `GET ${pattern} ?nonesuch_param`;
    t.equal(refused.status, 400, `${what}: 400`);
    t.equal(refused.body['error'], 'bad_params', `${what}: bad_params`);
    t.match(refused.body['detail'], /does not read the parameter nonesuch_param/, `${what}: names it`);
    const hint = text(refused.body['hint']);
    t.match(hint, /reads/, `${what}: the hint says what it reads`);
    // Each parameter the hint lists is read: a value of it may be refused, never as a parameter unread.
    const reads = /reads (.+)\.$/.exec(hint)?.[1]?.split(', ') ?? [];
    for (const name of hint.endsWith('reads no query parameter.') ? [] : reads) {
      const r = await get(`${path}?${name}=1`);
      t.notMatch(text(r.body['detail']), /does not read/, `GET ${pattern} reads ${name} (${r.status})`);
    }
  }

  for (const path of answered) {
    const r = await get(path);
    t.equal(r.status, 200, `GET ${path}: ${JSON.stringify(r.body).slice(0, 200)}`);
  }

  // The probes answer whatever a load balancer adds.
  t.equal((await get('/health?lb=1&x')).status, 200, '/health takes any parameter');
  const ready = await get('/ready?lb=1');
  t.not(ready.body['error'], 'bad_params', '/ready takes any parameter');

  // A typo is refused with the parameter meant, not answered as the whole feed.
  const typo = await get('/events?seet=ada');
  t.equal(typo.status, 400);
  t.match(typo.body, {
    error: 'bad_params',
    detail: /GET \/events does not read the parameter seet; did you mean seat\?/,
    hint: /agent_id, seat/,
  });
  // A question asked by name refuses it alike, naming the question.
  const asked = await get('/query/events?seet=ada');
  t.match(asked.body, { error: 'bad_params', detail: /^events does not read the parameter seet/ });
  const schedules = await get('/query/schedules?scope=all');
  t.match(schedules.body, { error: 'bad_params', hint: /schedules reads no query parameter/ });
});
