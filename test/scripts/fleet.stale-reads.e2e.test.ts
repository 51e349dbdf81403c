/**
 * A node cut from its streams says its read-model answers are stale (ops/fleet.md "While the bus is
 * unreachable"): a `svc serve` child reaches its nats-server through a TCP proxy; once the link is cut and
 * the client has declared it lost, `/agents` (and every read-model route) carries `Svc-Stale` naming since
 * when, while `/ready` answers 503 `broker_unlinked`; once the link is back the header is gone.
 */
import t from 'tap';
import { startProxiedNode } from '../harness/proxied-node.js';
import { until } from '../harness/until.js';

t.test('a node cut from its streams marks its /agents answer stale until the link is back', async (t) => {
  const { proxy, url } = await startProxiedNode(t, 'svc-stale-');
  const agents = async (path = '/agents') => {
    const res = await fetch(`${url}${path}`, { signal: AbortSignal.timeout(5_000) });
    await res.arrayBuffer();
    return { status: res.status, stale: res.headers.get('svc-stale') };
  };
  t.same(await agents(), { status: 200, stale: null }, 'linked: no stale mark');

  proxy.blackhole();
  proxy.cut();
  const cutAt = Date.now();
  const ready = await until(
    async () => (await fetch(`${url}/ready`)).status,
    (status) => status === 503,
    { timeoutMs: 30_000 },
  );
  t.equal(ready, 503, '/ready says not ready');
  const cut = await agents();
  t.equal(cut.status, 200, '/agents still answers from what the node had read');
  t.match(cut.stale, /^bus unreachable since \d{4}-\d\d-\d\dT[\d:.]+Z$/, `stale: ${cut.stale}`);
  const since = Date.parse(cut.stale!.replace('bus unreachable since ', ''));
  t.ok(since >= cutAt - 1_000, 'since the cut');
  t.match((await agents('/org')).stale, /^bus unreachable since /, 'every read-model route carries it');

  proxy.restore();
  const back = await until(agents, (a) => a.stale === null, { timeoutMs: 45_000 });
  t.same(back, { status: 200, stale: null }, 'the mark goes once the link is back');
});
