/**
 * Walks every route `svc serve` mounts (its `gateway_routes` debug line) without a credential and with a
 * wrong one, and holds each answer to the gateway's conventions (ops/http.md): a 401 carries a Bearer
 * challenge (webhook receivers excepted), a 405 an `Allow`, a 503 or 429 a `Retry-After`, a body a
 * `Content-Type`. A route added later is walked without touching this test.
 */
import { request as rawRequest } from 'node:http';
import t from 'tap';
import { startNode, TOKEN } from '../harness/serve-node.js';

interface Seen {
  readonly method: string;
  readonly path: string;
  readonly pattern: string;
  readonly sent: boolean;
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** node:http rather than fetch: fetch refuses some methods and hides nothing we need, but keeps bodies of HEAD. */
function send(base: string, method: string, path: string, headers: Record<string, string>, body?: string) {
  return new Promise<Omit<Seen, 'method' | 'path' | 'pattern' | 'sent'>>((resolve, reject) => {
    const req = rawRequest(`${base}${path}`, { method, headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', (err) => reject(new Error(`${method} ${path}: ${err.message}`)));
    req.end(body);
  });
}

/** Parameter values a route serves (`serves` refuses others as unserved); any other is `someone`. */
const fillers: Record<string, string> = { ':token': 'q'.repeat(32), ':signal': 'traces' };

/** A concrete path for a pattern: every parameter and the wildcard filled with plain values. */
const pathOf = (pattern: string): string =>
  pattern
    .split('/')
    .map((s) => (s === '*' ? 'a/b.txt' : s.startsWith(':') ? (fillers[s] ?? 'someone') : s))
    .join('/');

/** The coding runs' telemetry receiver: its refusals are OTLP/HTTP's (ops/sandboxes.md). */
const otlpPattern = '/otlp/:token/v1/:signal';

/** Pages a browser lands on answer HTML, refusals included (spec: the per-seat app flow, the chat install). */
const landingPages = new Set(['/webhooks/chat-oauth', '/webhooks/codehost-a-app']);

t.test('every route answers by the gateway conventions, 401s with their challenge', async (t) => {
  const node = await startNode(
    t,
    'debug: true\ntracker: {backend: native}\nknowledge: {backend: native}',
    'memory',
    {
      SVC_SANDBOX_OTEL_RECEIVER_URL: 'http://127.0.0.1:1',
    },
  );
  const listed = await node.run.waitForLog((l) => l['event'] === 'gateway_routes');
  const routes = (listed['routes'] as string[]).map((r) => r.split(' ') as [string, string]);
  t.ok(routes.length > 100, `the whole table is walked (${routes.length} routes)`);

  const seen: Seen[] = [];
  for (const [method, pattern] of routes) {
    const path = pathOf(pattern);
    for (const sent of [false, true]) {
      const headers: Record<string, string> = sent ? { authorization: 'Bearer not-a-token' } : {};
      const body = method === 'GET' ? undefined : '{}';
      if (body !== undefined) headers['content-type'] = 'application/json';
      const answer = await send(node.url, method, path, headers, body);
      seen.push({ method, path, pattern, sent, ...answer });
    }
  }
  // Reads with the operator token too (reads act on nothing): the answers past the guard, refusals included.
  for (const [method, pattern] of routes.filter(([m]) => m === 'GET')) {
    const path = pathOf(pattern);
    const answer = await send(node.url, method, path, { authorization: `Bearer ${TOKEN}` });
    seen.push({ method, path, pattern, sent: true, ...answer });
    const what = `GET ${pattern} with the token (${answer.status})`;
    t.not(answer.status, 401, `${what}: accepted`);
    t.ok(answer.status < 500 || answer.status === 503, `${what}: no failure inside the node`);
    // Guarded documents: the company's, its secrets, the setup and access views of the deployment.
    if (/^\/(config|secrets|setup|access)(\/|$)/.test(pattern))
      t.equal(answer.headers['cache-control'], 'no-store', `${what}: no-store`);
  }
  // The stream's handshake answers from the upgrade itself, before the route table.
  const ws = await send(node.url, 'GET', '/ws/stream?token=not-a-token', {
    upgrade: 'websocket',
    connection: 'Upgrade',
    'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
    'sec-websocket-version': '13',
  });
  seen.push({ method: 'GET', path: '/ws/stream', pattern: '/ws/stream (upgrade)', sent: true, ...ws });

  const refused = seen.filter((s) => s.status === 401);
  for (const s of refused) {
    const what = `${s.method} ${s.pattern} ${s.sent ? 'with a wrong token' : 'without a credential'}`;
    const challenge = s.headers['www-authenticate'];
    if (s.pattern.startsWith('/webhooks/') && s.pattern !== '/webhooks/relay') {
      t.equal(challenge, undefined, `${what}: a vendor's signature is no HTTP authentication scheme`);
      continue;
    }
    t.equal(
      challenge,
      // A path token (`/mcp/{token}`) is a credential sent.
      s.sent || s.pattern.includes('/:token')
        ? 'Bearer realm="svc", error="invalid_token"'
        : 'Bearer realm="svc"',
      `${what}: challenge`,
    );
  }
  // Not vacuous: the guard's refusals, a route's own and the path-token ones are all among them.
  for (const pattern of [
    '/config',
    '/metrics',
    '/mcp/:token',
    otlpPattern,
    '/work/people/:handle',
    '/ws/stream (upgrade)',
  ])
    t.ok(
      refused.some((s) => s.pattern === pattern),
      `a 401 of ${pattern} was checked`,
    );

  for (const s of seen) {
    const what = `${s.method} ${s.path} (${s.status})`;
    if (s.body !== '') t.ok(s.headers['content-type'], `${what}: a body has its Content-Type`);
    if (s.status === 503 || s.status === 429) t.ok(s.headers['retry-after'], `${what}: Retry-After`);
    if (s.status === 405) t.ok(s.headers['allow'], `${what}: Allow`);
    // A refusal is JSON `{error, detail, hint}`; the spec's codeless answers (426, webhook 503s) lack `error`.
    // OTLP/HTTP's own refusal body: a google.rpc.Status, JSON for the JSON request sent here.
    if (s.status >= 400 && s.pattern === otlpPattern) {
      t.match(s.headers['content-type'], /^application\/json/, `${what}: a refusal is JSON`);
      t.match(JSON.parse(s.body), { code: Number, message: String, details: [] }, `${what}: a Status`);
      continue;
    }
    if (s.status >= 400 && s.body !== '' && !landingPages.has(s.pattern)) {
      t.match(s.headers['content-type'], /^application\/json/, `${what}: a refusal is JSON`);
      const body = JSON.parse(s.body) as Record<string, unknown>;
      t.type(body['detail'], 'string', `${what}: a refusal says what happened`);
      t.type(body['hint'], 'string', `${what}: and what to do`);
      const codeless = s.status === 426 || (s.status === 503 && s.pattern.startsWith('/webhooks/'));
      if (!codeless) t.type(body['error'], 'string', `${what}: with its code`);
    }
  }
});
