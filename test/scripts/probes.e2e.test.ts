/**
 * The probes (SPEC "Probes") asked of real nodes from outside, with GET and HEAD: a seats-only node through
 * every state it passes (unconfigured, ready, cut from its bus, back, draining with a turn running), and an
 * ingress node while a turn runs and a burst of webhook deliveries arrives — every probe is answered, and
 * the answer is the node's state.
 */
import { createHmac, randomUUID } from 'node:crypto';
import t from 'tap';
import { ensureCatalogue, openBus } from '../../bus/index.js';
import { startLlmServer } from '../fixtures/llm/llm-server.js';
import { localProviders } from '../fixtures/llm/providers.js';
import type { Step } from '../fixtures/llm/script.js';
import { startFleetNode } from '../harness/fleet-node.js';
import { startNatsServer } from '../harness/nats-server.js';
import { startNode, TOKEN } from '../harness/serve-node.js';
import { startTcpProxy } from '../harness/tcp-proxy.js';
import { until } from '../harness/until.js';
import { mentionWake, queueWake } from '../harness/wake.js';

type Json = Record<string, unknown>;
const auth = { authorization: `Bearer ${TOKEN}` };
const SECRET = 'codehost-a-probes-secret-0123';

/** A turn whose first model call waits for `release('plan')`. */
const heldTurn: Step[] = [
  {
    kind: 'text',
    text: '{"decision":"plan","steps":["triage"],"success_criteria":["triaged"],"tools":[]}',
    hold: 'plan',
  },
  { kind: 'text', text: 'Triaged.' },
  { kind: 'text', text: '{"verdict":"done","notes":"ok"}' },
];

interface Probed {
  readonly health: Json;
  readonly ready: { status: number; body: Json };
  /** What HEAD answered each: status and body length. */
  readonly heads: { health: [number, number]; ready: [number, number] };
}

/** Both probes under GET and HEAD, each answered within 10 s. */
async function probe(url: string): Promise<Probed> {
  const ask = (path: string, method: string) =>
    fetch(`${url}${path}`, { method, signal: AbortSignal.timeout(10_000) });
  const health = await ask('/health', 'GET');
  const ready = await ask('/ready', 'GET');
  const headHealth = await ask('/health', 'HEAD');
  const headReady = await ask('/ready', 'HEAD');
  return {
    health: health.status === 200 ? ((await health.json()) as Json) : { http: health.status },
    ready: { status: ready.status, body: (await ready.json()) as Json },
    heads: {
      health: [headHealth.status, (await headHealth.arrayBuffer()).byteLength],
      ready: [headReady.status, (await headReady.arrayBuffer()).byteLength],
    },
  };
}

t.test(
  'a seats-only node answers /health 200 and /ready by its state: unconfigured, ready, cut from its bus, ' +
    'back, and draining while a turn runs; HEAD answers the same statuses without a body',
  async (t) => {
    const nats = await startNatsServer({ t });
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: nats.port }, { scheme: 'nats', t });
    const llm = await startLlmServer({ wire: 'openai', script: heldTurn });
    t.teardown(() => llm.close());
    const bus = await openBus({ type: 'jetstream', url: nats.url });
    t.teardown(() => bus.close());
    await ensureCatalogue(bus);
    const front = await startFleetNode(t, 'node-front', nats.url, { node: 'roles: [ingress, data]' });
    const seats = await startFleetNode(t, 'node-seats', proxy.url, {
      node: 'roles: [seats], turn_grace_seconds: 60',
    });
    const check = (p: Probed, status: string, ready: number, reason: string | null, what: string): void => {
      t.match(p.health, { status, node: 'node-seats', roles: ['seats'] }, `${what}: /health reads ${status}`);
      for (const key of ['clients', 'event_history_seconds', 'spend_history_seconds', 'seeded_from'])
        t.notOk(key in p.health, `${what}: the node half only, no ${key}`);
      t.equal(p.ready.status, ready, `${what}: /ready ${ready}`);
      t.same(p.ready.body['reason'], reason ?? undefined, `${what}: reason ${reason}`);
      t.same(p.heads, { health: [200, 0], ready: [ready, 0] }, `${what}: HEAD answers alike, no body`);
    };

    check(await probe(seats.url), 'unconfigured', 503, 'unconfigured', 'unconfigured');
    const put = await fetch(`${front.url}/config`, {
      method: 'PUT',
      headers: { ...auth, 'content-type': 'application/json', 'x-summary': 'probes' },
      body: JSON.stringify({
        name: 'Acme',
        timezone: 'UTC',
        providers: localProviders(llm.baseUrl),
        roles: [{ name: 'Ada' }],
      }),
    });
    t.equal(put.status, 201, 'the company is applied');
    await seats.run.waitForLog((l) => l.msg === 'config applied');
    check(
      await until(
        () => probe(seats.url),
        (p) => p.ready.status === 200,
      ),
      'ok',
      200,
      null,
      'serving',
    );

    proxy.blackhole();
    proxy.cut();
    const cut = await until(
      () => probe(seats.url),
      (p) => p.ready.body['reason'] === 'broker_unlinked' && p.health['status'] === 'isolated',
    );
    check(cut, 'isolated', 503, 'broker_unlinked', 'cut from its bus');
    proxy.restore();
    const back = await until(
      () => probe(seats.url),
      (p) => p.ready.status === 200 && p.health['status'] === 'ok',
      45_000,
    );
    check(back, 'ok', 200, null, 'linked again');

    await queueWake(bus, 'ada', mentionWake('probes'));
    await llm.waitForRequests(1);
    seats.run.kill('SIGTERM');
    await seats.run.waitForLog((l) => l.msg === 'drain started');
    const draining = await probe(seats.url);
    check(draining, 'shutting_down', 503, 'draining', 'draining');
    t.match(draining.ready.body, { ready: false, node: 'node-seats', draining: true, configured: true });
    t.match((await probe(front.url)).ready, { status: 200 }, 'the ingress node stays ready');
    llm.release('plan');
    t.equal(await seats.run.exited, 0, 'the seats node exits 0 once its turn is done');
  },
);

t.test(
  'the probes stay answered, 200 and ok, while a turn runs and 1,000 webhook deliveries arrive',
  async (t) => {
    const llm = await startLlmServer({ wire: 'openai', script: heldTurn });
    t.teardown(() => llm.close());
    const node = await startNode(t);
    const put = await fetch(`${node.url}/config`, {
      method: 'PUT',
      headers: { ...auth, 'content-type': 'application/json', 'x-summary': 'probes' },
      body: JSON.stringify({
        name: 'Acme',
        timezone: 'UTC',
        providers: localProviders(llm.baseUrl),
        integrations: { codehost_a: { webhook_secret: SECRET } },
        roles: [{ name: 'Ada' }, { name: 'Cy' }],
      }),
    });
    t.equal(put.status, 201, 'the company is applied');
    await node.run.waitForLog((l) => l.msg === 'config applied');
    const deliver = (body: string) =>
      fetch(`${node.url}/webhooks/codehost-a`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-codehost-a-event': 'issues',
          'x-codehost-a-delivery': randomUUID(),
          'x-codehost-a-signature-256': `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`,
        },
        body,
      });
    const assigned = JSON.stringify({
      action: 'assigned',
      sender: { login: 'someone' },
      issue: { number: 7, title: 'Bug', assignees: [{ login: 'cy' }] },
    });
    t.equal((await deliver(assigned)).status, 200, 'a delivery wakes cy');
    await llm.waitForRequests(1);

    let bursting = true;
    const seen: string[] = [];
    const poller = async (): Promise<void> => {
      while (bursting) {
        const p = await probe(node.url).catch((e: unknown) => ({ failed: String(e) }));
        seen.push(
          'failed' in p
            ? p.failed
            : `${String(p.health['status'])} ${p.ready.status} ${JSON.stringify(p.heads)}`,
        );
      }
    };
    const pollers = Array.from({ length: 4 }, poller);
    const statuses = new Map<number, number>();
    let sent = 0;
    const sender = async (): Promise<void> => {
      while (sent < 1_000) {
        sent += 1;
        const body = JSON.stringify({
          action: 'opened',
          sender: { login: 'someone' },
          issue: { number: 1_000 + sent, title: `Burst ${sent}`, body: 'x'.repeat(2_000) },
        });
        const res = await deliver(body);
        await res.arrayBuffer();
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      }
    };
    await Promise.all(Array.from({ length: 32 }, sender));
    bursting = false;
    await Promise.all(pollers);
    t.same([...statuses], [[200, 1_000]], 'every delivery was taken');
    t.ok(seen.length >= 4, `probes were asked during the burst (${seen.length})`);
    const expected = `ok 200 ${JSON.stringify({ health: [200, 0], ready: [200, 0] })}`;
    t.same(
      seen.filter((s) => s !== expected),
      [],
      'every probe was answered: /health ok, /ready 200, HEAD alike',
    );
    llm.release('plan');
    await node.run.waitForLog((l) => l.msg === 'turn completed');
    t.same((await probe(node.url)).ready, { status: 200, body: { ready: true } }, 'ready after the turn');
  },
);
