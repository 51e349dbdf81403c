/**
 * Fuzzing a running `svc serve` (memory engine) through raw sockets: generated methods, paths, query
 * strings, headers and bodies (bytes, JSON, YAML with anchors and aliases, deep nesting), with and
 * without the operator token. Every request gets an answer within a few seconds that is not a 5xx — a
 * 503 only when it is coded (an overloaded listener, a draining node) or is the spec's codeless webhook
 * 503 with `Retry-After` (a receiver without its secret, an unconfigured node) — and the node stays up. Header names keep to letters, digits and `-` (README Known limits: the transport drops others).
 * `FUZZ_RUNS` sets the number of cases (default 1500; `scripts/fuzz.sh` runs a longer one).
 */
import fc from 'fast-check';
import { connect } from 'node:net';
import t from 'tap';
import { startNode, TOKEN } from '../harness/serve-node.js';

const runs = Number(process.env['FUZZ_RUNS'] ?? 1500);
const seed = process.env['FUZZ_SEED'] !== undefined ? Number(process.env['FUZZ_SEED']) : undefined;

const routes = [
  '/', '/health', '/ready', '/config', '/config/revisions', '/config/revisions/{x}', '/config/diff',
  '/config/schema', '/config/references', '/config/units/{x}', '/config/seats/{x}', '/config/revert/{x}',
  '/config/reload', '/events', '/events/{x}', '/events/trace/{x}', '/query', '/query/events', '/query/turns',
  '/query/phases', '/query/turn', '/query/event_series', '/query/{x}', '/stream/snapshot', '/agents',
  '/agents/{x}', '/agents/{x}/memory', '/agents/{x}/pause', '/agents/{x}/resume', '/agents/activity',
  '/tokens/breakdown', '/tokens/series', '/budgets', '/org', '/tools', '/sandbox-runs', '/secrets',
  '/secrets/{x}', '/access', '/viewer', '/credential-pool', '/integrations', '/setup/integrations',
  '/setup/{x}', '/mcp-servers', '/schedules', '/fleet', '/fleet/broker', '/fleet/broker/remove/{x}',
  '/backups', '/webhooks/tracker-a', '/webhooks/tracker-b', '/webhooks/codehost-a', '/webhooks/codehost-b',
  '/webhooks/chat/{x}', '/webhooks/relay', '/webhooks/monitor', '/webhooks/wiki', '/webhooks/wiki/{x}',
  '/work', '/work/{x}', '/pages', '/pages/{x}', '/dashboard', '/static/{x}', '/{x}',
]; // prettier-ignore

const segment = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9._~-]{0,20}$/),
  fc.string({ maxLength: 12 }).map((s) => encodeURIComponent(s)),
  fc.constantFrom('..', '%2e%2e', '%00', '%ff', '%', '%zz', 'x'.repeat(300)),
);
const path = fc
  .tuple(
    fc.constantFrom(...routes),
    segment,
    fc.option(fc.array(fc.tuple(segment, segment), { maxLength: 4 })),
  )
  .map(([route, x, query]) => {
    const base = route.replace('{x}', x || 'x');
    return query === null ? base : `${base}?${query.map(([k, v]) => `${k}=${v}`).join('&')}`;
  });
const method = fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'TRACE', 'FOO');
const headerName = fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,30}$/);
const headerValue = fc.stringMatching(/^[\x20-\x7e]{0,80}$/).map((v) => v.trim());
const yamlish = fc.oneof(
  fc.constant('a: &x [1, 2]\nb: *x\n'),
  fc.constant('a: *nope\n'),
  fc.constant('x: &x\n  <<: *x\n'),
  fc.integer({ min: 1, max: 3000 }).map((n) => `${'['.repeat(n)}${']'.repeat(n)}`),
  fc.integer({ min: 1, max: 3000 }).map((n) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`),
  fc
    .array(fc.constantFrom('name: x', '- a', '  b: 1', '&a c', '*a', '<<: *a', ': :', '---', '...'), {
      maxLength: 12,
    })
    .map((lines) => lines.join('\n')),
);
const body = fc.oneof(
  fc.constant(''),
  fc.string({ maxLength: 200 }),
  fc.json({ maxDepth: 6 }),
  yamlish,
  fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes).toString('latin1')),
);
const contentType = fc.constantFrom(
  undefined,
  'application/json',
  'application/yaml',
  'application/merge-patch+json',
  'text/plain',
  'multipart/form-data; boundary=x',
);
const request = fc.record({
  method,
  path,
  headers: fc.array(fc.tuple(headerName, headerValue), { maxLength: 6 }),
  token: fc.constantFrom('valid', 'none', 'wrong'),
  contentType,
  body,
});
type Request = typeof request extends fc.Arbitrary<infer R> ? R : never;

/** Never send headers the test sets itself, or that would make the case a different test. */
const reserved = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'authorization',
  'connection',
  'expect',
]);

function wire(port: number, req: Request): string {
  const bytes = Buffer.from(req.body, 'latin1');
  const lines = [
    `${req.method} ${req.path} HTTP/1.1`,
    `host: 127.0.0.1:${port}`,
    'connection: close',
    `content-length: ${bytes.length}`,
  ];
  if (req.token === 'valid') lines.push(`authorization: Bearer ${TOKEN}`);
  if (req.token === 'wrong') lines.push('authorization: Bearer not-the-token-0123456789');
  if (req.contentType) lines.push(`content-type: ${req.contentType}`);
  for (const [name, value] of req.headers)
    if (!reserved.has(name.toLowerCase())) lines.push(`${name}: ${value}`);
  return `${lines.join('\r\n')}\r\n\r\n${req.body}`;
}

/** The status line and body of the answer, or null when the connection closed without one. */
function send(port: number, text: string): Promise<{ status: number; head: string; body: string } | null> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('no answer within 8 s'));
    }, 8_000);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      const raw = Buffer.concat(chunks).toString('latin1');
      const match = /^HTTP\/1\.1 (\d{3})/.exec(raw);
      if (!match) return resolve(null);
      const end = raw.indexOf('\r\n\r\n');
      resolve({ status: Number(match[1]), head: raw.slice(0, end).toLowerCase(), body: raw.slice(end + 4) });
    });
    socket.write(Buffer.from(text, 'latin1'));
  });
}

const coded = (body: string): boolean => {
  try {
    const parsed = JSON.parse(body) as { error?: unknown };
    return typeof parsed.error === 'string' && parsed.error.length > 0;
  } catch {
    return false;
  }
};

t.test('generated requests never get a 5xx, a hang or a crash', async (t) => {
  const node = await startNode(t);
  const seen = new Map<number, number>();
  await fc.assert(
    fc.asyncProperty(request, async (req) => {
      const answer = await send(node.port, wire(node.port, req));
      // A request the transport refuses outright (README Known limits) is closed without an answer.
      if (answer === null) return;
      seen.set(answer.status, (seen.get(answer.status) ?? 0) + 1);
      if (answer.status === 503 && coded(answer.body)) return;
      // The readiness probe says not ready with a 503 (`{ready: false, reason}`), as the spec has it.
      const probe = req.path.split('?')[0] === '/ready';
      if (answer.status === 503 && probe && (req.method === 'HEAD' || answer.body.includes('"ready":false')))
        return;
      // The spec's one codeless 503: a webhook route that cannot verify (no secret, unconfigured node).
      if (
        answer.status === 503 &&
        req.path.startsWith('/webhooks/') &&
        answer.head.includes('\r\nretry-after:')
      )
        return;
      if (answer.status >= 500)
        throw new Error(`${answer.status} for ${req.method} ${req.path}: ${answer.body}`);
    }),
    { numRuns: runs, ...(seed !== undefined ? { seed } : {}), endOnFailure: true },
  );
  t.comment(
    `statuses: ${[...seen]
      .sort(([a], [b]) => a - b)
      .map(([s, n]) => `${s}×${n}`)
      .join(' ')}`,
  );
  const health = await fetch(`${node.url}/health`);
  t.equal(health.status, 200, 'the node is still up');
  t.equal(node.run.child.exitCode, null, 'and never exited');
  t.ok(seen.size > 3, 'the cases reached many answers');
});
