/**
 * `/health` and `/ready` tell one story about the bus link (SPEC "Probes"; ops/fleet.md "Alarms"): the
 * moment `/ready` answers 503 `broker_unlinked`, `/health` reads `isolated`, never a cached `ok`; the moment
 * `/ready` is back, `/health` no longer reads `isolated` for the link. A `svc serve` child reaches its
 * nats-server through a TCP proxy; the probes are read in a tight loop, `/health` right before and right after
 * each `/ready`, so the envelope cache is always warm when the link changes.
 */
import t from 'tap';
import { startProxiedNode } from '../harness/proxied-node.js';

type Json = Record<string, unknown>;

interface Triple {
  readonly before: Json;
  readonly ready: { status: number; body: Json };
  readonly after: Json;
}

async function triple(url: string): Promise<Triple> {
  const health = async (): Promise<Json> => (await (await fetch(`${url}/health`)).json()) as Json;
  const before = await health();
  const res = await fetch(`${url}/ready`);
  const ready = { status: res.status, body: (await res.json()) as Json };
  return { before, ready, after: await health() };
}

/** Reads triples until `done` holds for one (answered) or `timeoutMs` passes (null). */
async function watch(url: string, done: (x: Triple) => boolean, timeoutMs: number): Promise<Triple | null> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const x = await triple(url);
    if (done(x)) return x;
  }
  return null;
}

t.test(
  'health never reads ok while ready reports the bus link lost, nor isolated once it is back',
  async (t) => {
    const { proxy, url } = await startProxiedNode(t, 'svc-probes-agree-');
    const calm = await watch(url, (x) => x.ready.status === 200 && x.after['status'] === 'ok', 30_000);
    t.ok(calm, 'ready and ok before the cut');

    proxy.blackhole();
    proxy.cut();
    const cut = await watch(url, (x) => x.ready.body['reason'] === 'broker_unlinked', 30_000);
    t.ok(cut, '/ready reports broker_unlinked');
    t.equal(cut?.after['status'], 'isolated', '/health read right after that /ready says isolated, not ok');

    proxy.restore();
    const back = await watch(url, (x) => x.ready.status === 200, 45_000);
    t.ok(back, '/ready is back');
    t.not(back?.after['posture'], 'isolated', 'the node posture itself is not isolated');
    t.not(back?.after['status'], 'isolated', '/health read right after that /ready no longer says isolated');
  },
);
