/**
 * Observers of routed notifications: a subscriber of `svc.notifications.inbound` gets each routed delivery's
 * notification with its pipeline header, the body as the sender sent it in its payload (routing reads the
 * receiver's own parse of it), and nothing for a repeat.
 */
import t from 'tap';
import { Subjects } from '../../../bus/index.js';
import { InboundNotification, RawHeader } from '../../../schema/index.js';
import { SECRETS } from './fixtures/company.js';
import { sign_ } from './fixtures/signers.js';
import { startWebhookNode } from './fixtures/webhook-node.js';

t.test('a routed delivery is emitted to a listening observer once, as received', async (t) => {
  const node = await startWebhookNode();
  t.teardown(() => node.close());
  const seen: Array<{ pipeline: string | undefined; notification: InboundNotification }> = [];
  let arrived: () => void = () => undefined;
  const routed = (count: number): Promise<void> =>
    new Promise<void>((resolve) => {
      arrived = () => seen.length >= count && resolve();
      arrived();
    });
  const sub = node.bus.subscribe(Subjects.notificationsInbound, (msg) => {
    const notification = InboundNotification.parse(JSON.parse(Buffer.from(msg.data).toString('utf8')));
    seen.push({ pipeline: msg.headers[RawHeader.Pipeline], notification });
    arrived();
  });
  t.teardown(() => sub.stop());
  const body = JSON.stringify({
    action: 'assigned',
    sender: { login: 'someone-outside' },
    repository: { full_name: 'acme/app' },
    issue: { number: 7, title: 'Login page is blank', assignees: [{ login: 'cy' }] },
  });
  const headers = sign_.codehostA(SECRETS.codehostA, body, 'gh-observed-1');
  t.equal((await node.post('/webhooks/codehost-a', body, headers)).status, 200);
  await routed(1);
  t.equal((await node.post('/webhooks/codehost-a', body, headers)).json?.['duplicate'], true);
  // The repeat is stored nowhere and routed never; a later delivery shows routing moved past it.
  const next = JSON.stringify({ ...JSON.parse(body), action: 'unassigned' });
  const nextHeaders = sign_.codehostA(SECRETS.codehostA, next, 'gh-observed-2');
  t.equal((await node.post('/webhooks/codehost-a', next, nextHeaders)).status, 200);
  await routed(2);
  t.same(
    seen.map((s) => [s.pipeline, s.notification.delivery_id]),
    [
      ['codehost-a', 'gh-observed-1'],
      ['codehost-a', 'gh-observed-2'],
    ],
  );
  t.same(seen[0]?.notification.payload, JSON.parse(body), 'the payload is the body the sender sent');
  t.same(seen[1]?.notification.payload, JSON.parse(next));
});
