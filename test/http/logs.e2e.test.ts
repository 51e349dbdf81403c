import t from 'tap';
import { call, echo, OPS, openAuth, startHarness } from './fixtures/gateway-harness.js';

const opsToken = openAuth.tokens[0]!.token;
const wrongCandidate = 'candidate-that-must-never-be-logged';
const runToken = 'per-run-token-5f0c2a';

t.test('every request line carries route and operator; no credential ever reaches the log', async (t) => {
  const h = await startHarness({
    auth: { ...openAuth, allowAnonymousRead: false },
    limits: { bodyTimeoutMs: 200 },
    routes: [
      {
        method: 'GET',
        pattern: '/config',
        handler: (req) => {
          req.log.info({ event: 'handler_says' }, 'hello from a handler');
          return { status: 200, body: {} };
        },
      },
      echo('GET', '/ws/stream'),
      echo('POST', '/mcp/:token'),
      echo('POST', '/otlp/:token/v1/:signal'),
    ],
  });
  t.teardown(() => h.gw.close());
  const q = encodeURIComponent(opsToken);
  await call(`${h.base}/config`, { headers: { authorization: OPS } });
  await call(`${h.base}/config`, { headers: { authorization: `Bearer ${wrongCandidate}` } });
  await call(`${h.base}/config`);
  await call(`${h.base}/config?token=${q}`);
  await call(`${h.base}/ws/stream?token=${q}`);
  await call(`${h.base}/ws/stream?token=${wrongCandidate}`);
  await call(`${h.base}/mcp/${runToken}`, { method: 'POST', body: '{}' });
  await call(`${h.base}/otlp/${runToken}/v1/traces`, { method: 'POST', body: 'x' });
  await call(`${h.base}/mcp/${runToken}/nothing`, { method: 'POST', body: '{}' });
  // Mistyped token paths are 404s, logged with their raw path: the token is masked there too.
  await call(`${h.base}/mcp//${runToken}`, { method: 'POST', body: '{}' });
  await call(`${h.base}/OTLP/${runToken}/v1/traces`, { method: 'POST', body: 'x' });
  await call(`${h.base}/config`, { method: 'DELETE', headers: { authorization: OPS } });
  await call(`${h.base}/health`);

  const requests = h.logs.filter((l) => l.msg === 'request' || l.event === 'handler_says');
  t.ok(requests.length >= 13, `${requests.length} request lines`);
  for (const line of requests) {
    t.ok(
      'route' in line && 'operator' in line,
      `${String(line.method)} ${String(line.path)}: route and operator`,
    );
  }
  t.ok(requests.some((l) => l.operator === 'ops' && l.route === '/config'));
  t.ok(requests.some((l) => l.event === 'handler_says' && l.operator === 'ops' && l.route === '/config'));
  t.ok(
    requests.some((l) => l.path === '/mcp/[token]'),
    'path tokens are masked',
  );
  t.ok(requests.some((l) => l.path === '/otlp/[token]/v1/traces'));

  const text = h.rawLogs();
  for (const secret of [opsToken, q, wrongCandidate, runToken]) {
    t.notOk(text.includes(secret), `log never holds ${secret.slice(0, 8)}…`);
  }
});

t.test(
  'a refused credential is a WARNING without the candidate; an accepted one DEBUG with operator and route',
  async (t) => {
    const h = await startHarness({ routes: [echo('GET', '/config')] });
    t.teardown(() => h.gw.close());
    await call(`${h.base}/config`, { headers: { authorization: `Bearer ${wrongCandidate}` } });
    await call(`${h.base}/config`, { headers: { authorization: OPS } });
    const refused = h.logs.find((l) => l.event === 'auth_refused');
    t.equal(refused?.level, 40, 'WARNING');
    t.equal(refused?.route, '/config');
    t.equal(refused?.operator, null);
    t.notOk(JSON.stringify(refused).includes(wrongCandidate));
    const accepted = h.logs.find((l) => l.event === 'auth_accepted');
    t.equal(accepted?.level, 20, 'DEBUG');
    t.equal(accepted?.operator, 'ops');
    t.equal(accepted?.route, '/config');
  },
);

t.test('what a handler logs with its reply lands on the request line, never in the answer', async (t) => {
  const h = await startHarness({
    routes: [
      {
        method: 'POST',
        pattern: '/webhooks/x',
        handler: () => ({
          status: 200,
          body: { accepted: true },
          logged: { event: 'webhook_accepted', seq: 7 },
        }),
      },
    ],
  });
  t.teardown(() => h.gw.close());
  const res = await call(`${h.base}/webhooks/x`, { method: 'POST', body: '{}' });
  t.same(JSON.parse(res.text), { accepted: true }, 'the answer is the body alone');
  const lines = h.logs.filter((l) => l.route === '/webhooks/x');
  t.equal(lines.length, 1, 'one line for the request');
  t.match(lines[0], { msg: 'request', event: 'webhook_accepted', seq: 7, status: 200 });
});
