import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import t from 'tap';
import { startGateway } from '../../http/index.js';
import { call, echo, freePort, OPS, openAuth, startHarness } from './fixtures/gateway-harness.js';

/** TCP ports this process is listening on (from /proc: its socket inodes in LISTEN state). */
function listeningPorts(): number[] {
  const mine = new Set<string>();
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/self/fd/${fd}`));
      if (m) mine.add(m[1]!);
    } catch {
      // the fd closed while listing
    }
  }
  const ports: number[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols[3] === '0A' && mine.has(cols[9] ?? '')) ports.push(parseInt(cols[1]!.split(':')[1]!, 16));
    }
  }
  return ports.sort();
}

const probes = {
  health: () => ({}),
  ready: () => ({ ready: true as const }),
  draining: () => false,
  configured: () => true,
};

t.test('api.port 0 binds nothing', async (t) => {
  const before = listeningPorts();
  const gw = await startGateway({
    host: '127.0.0.1',
    port: 0,
    ingress: true,
    auth: openAuth,
    probes,
    routes: [echo('GET', '/org')],
  });
  t.equal(gw.port, 0);
  t.equal(gw.publicPort, null);
  t.same(listeningPorts(), before, 'no new listening socket');
  await gw.drain();
  t.pass('drains at once');
});

t.test('the listener check sees a bound gateway', async (t) => {
  const h = await startHarness();
  t.teardown(() => h.gw.close());
  t.ok(listeningPorts().includes(h.gw.port));
});

const publicRoutes = [
  echo('POST', '/webhooks/codehost-a'),
  echo('POST', '/otlp/:token/v1/:signal'),
  echo('POST', '/mcp/:token'),
  echo('GET', '/org'),
  echo('PUT', '/config'),
];

t.test('with api.public.port, public routes live only on the public listener', async (t) => {
  const h = await startHarness({ withPublic: true, routes: publicRoutes });
  t.teardown(() => h.gw.close());
  const pub = h.publicBase!;
  t.equal((await call(`${pub}/webhooks/codehost-a`, { method: 'POST', body: '{}' })).status, 200);
  t.equal((await call(`${pub}/otlp/tok/v1/traces`, { method: 'POST', body: 'x' })).status, 200);
  t.equal((await call(`${pub}/mcp/tok`, { method: 'POST', body: '{}' })).status, 200);
  for (const path of ['/webhooks/codehost-a', '/otlp/tok/v1/traces', '/mcp/tok', '/webhooks/unknown']) {
    const r = await call(`${h.base}${path}`, { method: 'POST', body: '{}' });
    t.equal(r.status, 404, `api.port ${path}`);
    t.equal(r.json?.error, 'no_route');
    t.match(r.json?.hint, /api\.public/, 'hint names api.public');
  }
  t.equal((await call(`${h.base}/org`)).status, 200, 'the rest stays on api.port');
  t.equal((await call(`${h.base}/health`)).status, 200);
});

t.test(
  'any other path asked of the public listener is the generic 404, decided before the guard',
  async (t) => {
    const h = await startHarness({ withPublic: true, routes: publicRoutes });
    t.teardown(() => h.gw.close());
    const pub = h.publicBase!;
    const cases: Array<[string, string, Record<string, string>]> = [
      ['GET', '/org', {}],
      ['GET', '/org', { authorization: 'Bearer wrong' }],
      ['PUT', '/config', {}],
      ['GET', '/health', {}],
      ['GET', '/ready', {}],
      ['GET', '/nothing', {}],
    ];
    for (const [method, path, headers] of cases) {
      const r = await call(`${pub}${path}`, { method, headers, ...(method === 'PUT' ? { body: '{}' } : {}) });
      t.equal(r.status, 404, `${method} ${path}`);
      t.equal(r.json?.error, 'no_route');
      t.notMatch(r.json?.hint, /api\.public/);
    }
  },
);

t.test('without api.public.port every route is on api.port', async (t) => {
  const h = await startHarness({ routes: publicRoutes });
  t.teardown(() => h.gw.close());
  t.equal(h.gw.publicPort, null);
  t.equal((await call(`${h.base}/webhooks/codehost-a`, { method: 'POST', body: '{}' })).status, 200);
  t.equal((await call(`${h.base}/mcp/tok`, { method: 'POST', body: '{}' })).status, 200);
});

t.test(
  'a node without ingress serves probes and /mcp only: 401 for writes and guarded paths, 404 else',
  async (t) => {
    const h = await startHarness({ ingress: false, routes: publicRoutes });
    t.teardown(() => h.gw.close());
    t.equal((await call(`${h.base}/health`)).status, 200);
    t.equal((await call(`${h.base}/ready`)).status, 200);
    t.equal((await call(`${h.base}/mcp/tok`, { method: 'POST', body: '{}' })).status, 200);
    t.equal((await call(`${h.base}/org`)).status, 404);
    t.equal((await call(`${h.base}/webhooks/codehost-a`, { method: 'POST', body: '{}' })).status, 404);
    t.equal((await call(`${h.base}/config`, { method: 'PUT', body: '{}' })).status, 401);
    t.equal((await call(`${h.base}/config`)).status, 401);
    t.equal((await call(`${h.base}/work/x`, { method: 'POST' })).status, 401);
    t.equal(
      (await call(`${h.base}/config`, { method: 'PUT', body: '{}', headers: { authorization: OPS } })).status,
      404,
    );
  },
);

t.test('a node without ingress and with a public listener serves /mcp there alone', async (t) => {
  const h = await startHarness({ ingress: false, withPublic: true, routes: publicRoutes });
  t.teardown(() => h.gw.close());
  t.equal((await call(`${h.publicBase!}/mcp/tok`, { method: 'POST', body: '{}' })).status, 200);
  t.equal((await call(`${h.base}/mcp/tok`, { method: 'POST', body: '{}' })).status, 404);
  t.equal((await call(`${h.publicBase!}/webhooks/codehost-a`, { method: 'POST', body: '{}' })).status, 404);
  t.equal((await call(`${h.publicBase!}/health`)).status, 404);
  const hook = await call(`${h.base}/webhooks/codehost-a`, { method: 'POST', body: '{}' });
  t.equal(hook.json?.error, 'no_route');
  t.notMatch(hook.json?.hint, /api\.public/, 'no hint to a listener that does not serve it either');
  const bridge = await call(`${h.base}/mcp/tok`, { method: 'POST', body: '{}' });
  t.match(bridge.json?.hint, /api\.public/, 'the bridge is named as moved');
});

t.test('a node without ingress and with nothing public to serve binds no public listener', async (t) => {
  const before = listeningPorts();
  const gw = await startGateway({
    host: '127.0.0.1',
    port: await freePort(),
    publicPort: await freePort(),
    ingress: false,
    auth: openAuth,
    probes,
    routes: [echo('GET', '/org'), echo('POST', '/webhooks/codehost-a')],
  });
  t.teardown(() => gw.close());
  t.equal(gw.publicPort, null);
  t.same(
    listeningPorts().filter((p) => !before.includes(p)),
    [gw.port],
    'api.port alone is bound, for the probes',
  );
  t.equal((await call(`http://127.0.0.1:${gw.port}/health`)).status, 200);
});

t.test('a taken port is refused with GatewayListenError', async (t) => {
  const h = await startHarness();
  t.teardown(() => h.gw.close());
  await t.rejects(
    startGateway({ host: '127.0.0.1', port: h.gw.port, ingress: true, auth: openAuth, probes }),
    { name: 'GatewayListenError' },
  );
});
