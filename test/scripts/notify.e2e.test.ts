/**
 * An outbound webhook transport on a running `svc serve`: a signed inbound delivery becomes its
 * `webhook_received` event, which the transport POSTs to the operator's hook, signed Standard Webhooks
 * style; the transport's URL and secret are redacted on `GET /config`.
 */
import { createHmac } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { webhookSignature } from '../../actors/notify/transport.js';
import { startNode, TOKEN } from '../harness/serve-node.js';

const auth = { authorization: `Bearer ${TOKEN}` };
const trackerSecret = 'e2e-tracker-b-secret-0123456789';
const hookSecret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

t.test('a delivery’s webhook_received event reaches the operator’s hook, signed', async (t) => {
  const received: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
  let arrived: () => void = () => undefined;
  const first = new Promise<void>((resolve) => (arrived = resolve));
  const hook = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.end();
      arrived();
    });
  });
  hook.listen(0, '127.0.0.1');
  await once(hook, 'listening');
  t.teardown(() => new Promise<void>((resolve) => hook.close(() => resolve())));
  const hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hooks/svc`;

  const node = await startNode(t);
  const put = await fetch(`${node.url}/config`, {
    method: 'PUT',
    headers: { ...auth, 'content-type': 'application/json', 'x-summary': 'a hook for the operators' },
    body: JSON.stringify({
      name: 'Acme',
      roles: [{ name: 'Ada' }],
      integrations: {
        tracker_b: { enabled: true, url: 'https://tracker-b.example', webhook_secret: trackerSecret },
      },
      notification_transports: {
        ops: { type: 'webhook', url: hookUrl, secret: hookSecret, events: ['webhook_received'] },
      },
    }),
  });
  const answer = (await put.json()) as { epoch: number };
  t.equal(put.status, 201, `PUT /config answered ${JSON.stringify(answer)}`);
  const { epoch } = answer;
  await node.run.waitForLog((l) => l.msg === 'config applied' && l['epoch'] === epoch);

  const body = JSON.stringify({ event: 'issue', action: 'updated', data: { id: 'item-1', name: 'Item 1' } });
  const delivered = await fetch(`${node.url}/webhooks/tracker-b`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-tracker-b-event': 'issue',
      'x-tracker-b-delivery': 'e2e-1',
      'x-tracker-b-signature': createHmac('sha256', trackerSecret).update(body).digest('hex'),
    },
    body,
  });
  t.equal(delivered.status, 200);
  await first;
  const [r] = received;
  const event = JSON.parse(r!.body) as { id: string; type: string; payload: { delivery_id: string } };
  t.match(event, { type: 'webhook_received', payload: { delivery_id: 'e2e-1' } });
  t.equal(r!.headers['webhook-id'], event.id);
  t.equal(
    r!.headers['webhook-signature'],
    webhookSignature(hookSecret, event.id, String(r!.headers['webhook-timestamp']), r!.body),
  );

  const config = await (await fetch(`${node.url}/config`, { headers: auth })).text();
  t.notMatch(config, /hooks\/svc|MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw/, 'URL and secret are redacted on reads');
  t.notMatch(node.run.stdout(), /hooks\/svc|MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw/, 'and never logged');
});
