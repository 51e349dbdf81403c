/**
 * An outbound webhook transport on a running `svc serve`: a signed inbound delivery becomes its
 * `webhook_received` event, which the transport POSTs to the operator's hook, signed Standard Webhooks
 * style; the transport's URL and secret are redacted on `GET /config` and never logged. On a fleet of two
 * nodes (separate processes on one nats-server) both run the transport and each event is sent once.
 */
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { webhookSignature } from '../../actors/notify/requests.js';
import { startFleetNode } from '../harness/fleet-node.js';
import { startNatsServer } from '../harness/nats-server.js';
import { startNode, TOKEN } from '../harness/serve-node.js';
import { deliverTrackerB, putNotifyCompany } from './fixtures/tracker-b-notify.js';

const auth = { authorization: `Bearer ${TOKEN}` };
const hookSecret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

interface Hook {
  readonly url: string;
  readonly received: Array<{ headers: IncomingHttpHeaders; body: string }>;
  /** Resolves once `n` requests arrived. */
  until(n: number): Promise<void>;
}

async function startHook(t: Test): Promise<Hook> {
  const received: Hook['received'] = [];
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.end();
      for (const w of waiters.filter((w) => received.length >= w.n)) w.resolve();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/svc`,
    received,
    until: (n) =>
      received.length >= n ? Promise.resolve() : new Promise((resolve) => waiters.push({ n, resolve })),
  };
}

/** Writes the company (a tracker-b receiver and the signed webhook transport) through `url`; its epoch. */
const putCompany = (t: Test, url: string, hookUrl: string): Promise<number> =>
  putNotifyCompany(
    t,
    url,
    { type: 'webhook', url: hookUrl, secret: hookSecret, events: ['webhook_received'] },
    'a hook for the operators',
  );
const deliveryOf = (r: Hook['received'][number]): string =>
  (JSON.parse(r.body) as { payload: { delivery_id: string } }).payload.delivery_id;

t.test('a delivery’s webhook_received event reaches the operator’s hook, signed', async (t) => {
  const hook = await startHook(t);
  const node = await startNode(t);
  const epoch = await putCompany(t, node.url, hook.url);
  await node.run.waitForLog((l) => l.msg === 'config applied' && l['epoch'] === epoch);
  t.equal(await deliverTrackerB(node.url, 'e2e-1'), 200);
  await hook.until(1);
  const [r] = hook.received;
  const event = JSON.parse(r!.body) as { id: string; type: string };
  t.match(event, { type: 'webhook_received' });
  t.equal(deliveryOf(r!), 'e2e-1');
  t.equal(r!.headers['webhook-id'], event.id);
  t.equal(
    r!.headers['webhook-signature'],
    webhookSignature(hookSecret, event.id, String(r!.headers['webhook-timestamp']), r!.body),
  );
  const config = await (await fetch(`${node.url}/config`, { headers: auth })).text();
  t.notMatch(config, /hooks\/svc|MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw/, 'URL and secret are redacted on reads');
  t.notMatch(node.run.stdout(), /hooks\/svc|MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw/, 'and never logged');
});

t.test('on two nodes each event is sent once, whichever node received the delivery', async (t) => {
  const nats = await startNatsServer({ t });
  const hook = await startHook(t);
  const a = await startFleetNode(t, 'node-a', nats.url);
  const b = await startFleetNode(t, 'node-b', nats.url);
  const epoch = await putCompany(t, a.url, hook.url);
  for (const node of [a, b]) {
    await node.run.waitForLog((l) => l.msg === 'config applied' && l['epoch'] === epoch);
    t.ok(
      node.run.lines.some((l) => l.msg === 'notification transport started'),
      `${node.id} runs it`,
    );
  }
  const n = 20;
  for (let i = 0; i < n; i += 1)
    t.equal(await deliverTrackerB(i % 2 === 0 ? a.url : b.url, `fleet-${i}`), 200);
  await hook.until(n);
  t.same(
    hook.received.map(deliveryOf).sort(),
    Array.from({ length: n }, (_, i) => `fleet-${i}`).sort(),
    'every delivery’s event, once',
  );
  t.equal(new Set(hook.received.map((r) => r.headers['webhook-id'])).size, n, 'no event id twice');
});
