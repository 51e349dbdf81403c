/**
 * Spec "Authentication" 1–4 walked over every route a real `svc serve` mounts (its `gateway_routes` debug
 * line), classified from the spec's own lists rather than the guard's: each always-guarded family (reads
 * too) and every write answer 401 without a token, with a wrong one, and with a right one in `?token=`;
 * other reads are open, refuse a wrong token, and see a `?token=` as no credential; with
 * `allow_anonymous_read: false` every read needs the header token, `/ws/stream` alone also taking
 * `?token=`. The never-guarded list answers a wrong bearer as it answers none: rule 4 refuses a wrong token
 * "where reads are open", which the guard decides; rule 3's routes are outside the guard (a relay delivery's
 * JWT is a bearer the receiver verifies, rule 8). Refusals log at WARNING without the candidate, acceptances
 * at DEBUG with operator and route.
 */
import { randomBytes } from 'node:crypto';
import { request as rawRequest } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { freePort, runSvc, type LogLine, type SvcChild } from '../harness/child.js';
import { rawWebSocket } from '../harness/ws-raw.js';

/** Spec "Authentication" 2: guarded always, reads included. */
function alwaysGuarded(method: string, pattern: string): boolean {
  if (method === 'POST' && pattern === '/backup') return true;
  return (
    /^\/(config|secrets|setup|operator)(\/|$)/.test(pattern) ||
    /^\/fleet(\/broker.*)?$/.test(pattern) ||
    /^\/work\/retention/.test(pattern) ||
    ['/access', '/credential-pool', '/backups', '/mcp-servers'].includes(pattern)
  );
}

/** Spec "Authentication" 3: never guarded. */
function neverGuarded(pattern: string): boolean {
  return (
    /^\/(webhooks|otlp|mcp)\//.test(pattern) ||
    ['/', '/dashboard', '/dashboard/', '/favicon.ico'].includes(pattern) ||
    pattern.startsWith('/static/')
  );
}

/**
 * Guarded by this project beyond the spec's list: the Prometheus exposition names every seat's spend
 * (ops/metrics.md). Walked as guarded.
 */
const alsoGuarded = new Set(['GET /metrics']);

/** Reads the guard lets through that refuse an anonymous caller by their own rule (spec "Authentication" 7). */
const ownRefusal = new Set(['GET /work/people/:handle']);

// A value each parameter serves (`POST /pages/*` serves only a page's comments): a path `serves` refuses is unserved, and an unserved path has no route to log.
const fillers: Record<string, string> = { ':token': 'q'.repeat(32), ':signal': 'traces', ':kind': 'roles' };
const pathOf = (pattern: string): string =>
  pattern
    .split('/')
    .map((s) => (s === '*' ? 'a/comments' : s.startsWith(':') ? (fillers[s] ?? 'someone') : s))
    .join('/');

interface Answer {
  readonly status: number;
  readonly error: unknown;
}

function send(node: Node, method: string, path: string, headers: Record<string, string> = {}) {
  return new Promise<Answer>((resolve, reject) => {
    const body = method === 'GET' ? undefined : '{}';
    const all = body === undefined ? headers : { ...headers, 'content-type': 'application/json' };
    const req = rawRequest(`${node.url}${path}`, { method, headers: all, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        let error: unknown = null;
        try {
          error = (JSON.parse(text) as Record<string, unknown>)['error'];
        } catch {
          // an HTML page or an empty body: no code
        }
        resolve({ status: res.statusCode ?? 0, error });
      });
    });
    req.on('error', (err) => reject(new Error(`${method} ${path}: ${err.message}`)));
    req.end(body);
  });
}

const withQuery = (path: string, token: string): string => `${path}?token=${encodeURIComponent(token)}`;

async function routesOf(node: Node): Promise<Array<[string, string]>> {
  const listed = await node.run.waitForLog((l) => l['event'] === 'gateway_routes');
  return (listed['routes'] as string[]).map((r) => r.split(' ') as [string, string]);
}

const TOKEN = `ops-${randomBytes(12).toString('hex')}`;
/** A present wrong candidate: distinctive, so the log can be searched for it. */
const WRONG = `wrong-${randomBytes(12).toString('hex')}`;

interface Node {
  readonly run: SvcChild;
  readonly port: number;
  readonly url: string;
}

async function serve(t: Test, anonymousReads: boolean): Promise<Node> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-auth-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true, maxRetries: 5 }));
  const port = await freePort();
  const file = join(dir, 'config.yaml');
  const auth = `{allow_anonymous_read: ${anonymousReads}, tokens: [{id: ops, token: "\${T_OPS}"}]}`;
  writeFileSync(
    file,
    [
      'debug: true',
      'providers: {queue: {type: memory}}',
      `api: {host: 127.0.0.1, port: ${port}, auth: ${auth}}`,
      `stream: {store_dir: ${join(dir, 'data')}}`,
      'tracker: {backend: native}',
      'knowledge: {backend: native}',
    ].join('\n'),
  );
  const run = runSvc(['serve', '--config', file], {
    T_OPS: TOKEN,
    SVC_SANDBOX_OTEL_RECEIVER_URL: 'http://127.0.0.1:1',
  });
  t.teardown(() => run.kill('SIGKILL'));
  await run.waitForLog((l) => l.msg === 'node serving');
  return { run, port, url: `http://127.0.0.1:${port}` };
}

const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

t.test(
  'reads open: every guarded family and write refuses no token, a wrong one and a ?token=; other reads refuse only a wrong one',
  async (t) => {
    const node = await serve(t, true);
    const routes = await routesOf(node);
    t.ok(routes.length > 100, `the whole table is walked (${routes.length} routes)`);
    const families = new Set<string>();
    for (const [method, pattern] of routes) {
      const path = pathOf(pattern);
      const what = `${method} ${pattern}`;
      const none = await send(node, method, path);
      const wrong = await send(node, method, path, bearer(WRONG));
      const query = await send(node, method, withQuery(path, TOKEN));
      if (neverGuarded(pattern)) {
        t.equal(wrong.status, none.status, `${what}: a wrong bearer is answered as none (rule 3)`);
        t.equal(query.status, none.status, `${what}: a ?token= changes nothing`);
        continue;
      }
      t.same(wrong, { status: 401, error: 'invalid_token' }, `${what}: a wrong token is refused (rule 4)`);
      const guarded = alwaysGuarded(method, pattern) || alsoGuarded.has(what) || method !== 'GET';
      if (guarded) {
        if (alwaysGuarded(method, pattern)) families.add(pattern.split('/')[1]!);
        t.same(none, { status: 401, error: 'invalid_token' }, `${what}: no token, 401`);
        t.same(query, { status: 401, error: 'invalid_token' }, `${what}: ?token= authenticates nobody`);
        continue;
      }
      if (ownRefusal.has(what)) t.equal(none.status, 401, `${what}: refused by its own rule`);
      else t.not(none.status, 401, `${what}: open without a token (${none.status})`);
      // Answered as anonymous (a route reading only known parameters refuses it as one): never 401.
      if (!ownRefusal.has(what)) t.not(query.status, 401, `${what}: ?token= is neither accepted nor refused`);
    }
    t.same(
      [...families].sort(),
      ['access', 'backup', 'backups', 'config', 'credential-pool', 'fleet', 'mcp-servers', 'operator']
        .concat(['secrets', 'setup', 'work'])
        .sort(),
      'every family of rule 2 was among the routes walked',
    );
    for (const probe of ['/health', '/ready']) {
      const none = await send(node, 'GET', probe);
      t.equal((await send(node, 'GET', probe, bearer(WRONG))).status, none.status, `${probe}: never guarded`);
    }
    // A ?token= named someone only on /ws/stream (rule 2); the walk's one header token is last.
    t.not((await send(node, 'GET', '/org', bearer(TOKEN))).status, 401);
    await node.run.waitForLog((l) => l['event'] === 'auth_accepted' && l['route'] === '/org');
    t.same(
      node.run.lines.filter((l) => l['event'] === 'auth_accepted').map((l) => l['route']),
      ['/ws/stream', '/org'],
      "a ?token= authenticated nobody on any route but the socket's",
    );
  },
);

t.test(
  'reads closed: every read needs the header token; /ws/stream alone takes ?token=; refusals log WARNING without the candidate, acceptances DEBUG',
  async (t) => {
    const node = await serve(t, false);
    const routes = await routesOf(node);
    const refusedRoutes = new Set<string>();
    const openRoutes = new Set<string>();
    for (const [method, pattern] of routes) {
      if (neverGuarded(pattern)) {
        // Rule 3 holds with reads closed: no token, a wrong one and a right one reach the route alike.
        const path = pathOf(pattern);
        const none = await send(node, method, path);
        t.equal((await send(node, method, path, bearer(WRONG))).status, none.status, `${method} ${pattern}`);
        t.equal((await send(node, method, path, bearer(TOKEN))).status, none.status, `${method} ${pattern}`);
        openRoutes.add(pattern);
        continue;
      }
      const path = pathOf(pattern);
      const what = `${method} ${pattern}`;
      t.same(await send(node, method, path), { status: 401, error: 'invalid_token' }, `${what}: no token`);
      t.same(
        await send(node, method, path, bearer(WRONG)),
        { status: 401, error: 'invalid_token' },
        `${what}: a wrong token`,
      );
      refusedRoutes.add(pattern);
      const query = await send(node, method, withQuery(path, TOKEN));
      if (pattern === '/ws/stream') t.equal(query.status, 426, `${what}: ?token= accepted, no Upgrade: 426`);
      else t.same(query, { status: 401, error: 'invalid_token' }, `${what}: ?token= authenticates nobody`);
      if (method === 'GET' && pattern !== '/ws/stream')
        t.not((await send(node, method, path, bearer(TOKEN))).status, 401, `${what}: the header token reads`);
    }
    for (const probe of ['/health', '/ready']) {
      const answer = await send(node, 'GET', probe);
      t.not(answer.status, 401, `${probe}: open with reads closed (${answer.status})`);
    }
    t.ok(openRoutes.has('/webhooks/relay') && openRoutes.has('/dashboard'), 'webhooks and the shell walked');
    const opened = await rawWebSocket(node.port, withQuery('/ws/stream', TOKEN));
    t.equal(opened.status, 101, 'the socket opens with ?token=');
    opened.destroy();
    const refused = await rawWebSocket(node.port, withQuery('/ws/stream', WRONG));
    t.equal(refused.status, 401, 'and refuses a wrong one');
    refused.destroy();

    // Rule 1: the log of the walk.
    const lines: LogLine[] = node.run.lines;
    const refusals = lines.filter((l) => l['event'] === 'auth_refused');
    t.ok(refusals.length > 200, `${refusals.length} refusals logged`);
    t.same(
      refusals.filter((l) => l.level !== 40 || l['operator'] !== null),
      [],
      'each refusal at WARNING, naming no operator',
    );
    t.same(
      refusals.filter((l) => openRoutes.has(String(l['route']))),
      [],
      'the guard refused nothing on a never-guarded route',
    );
    const wrongRoutes = new Set(refusals.filter((l) => l['reason'] === 'wrong').map((l) => l['route']));
    t.same(
      [...refusedRoutes].filter((r) => !wrongRoutes.has(r)),
      [],
      'a refused wrong token is logged with its route pattern',
    );
    const accepted = lines.filter((l) => l['event'] === 'auth_accepted');
    t.ok(accepted.length > 50, `${accepted.length} acceptances logged`);
    t.same(
      accepted.filter((l) => l.level !== 20 || l['operator'] !== 'ops' || typeof l['route'] !== 'string'),
      [],
      'each acceptance at DEBUG with operator and route',
    );
    t.ok(
      accepted.some((l) => l['route'] === '/ws/stream') && accepted.some((l) => l['route'] === '/agents/:id'),
      'the socket and a patterned read among them',
    );
    const text = node.run.stdout();
    t.notOk(text.includes(WRONG), 'the candidate is never logged');
    t.notOk(text.includes(TOKEN), 'nor the right token');
  },
);
