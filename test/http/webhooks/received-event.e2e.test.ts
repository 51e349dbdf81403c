/**
 * The events side of a delivery: the integration actor records `webhook_received` in the trace its
 * inbox messages carry (so `/events/trace/{id}` leads from a turn back to the delivery that woke it),
 * and records nothing for an agent's own action it drops.
 */
import t from 'tap';
import { Streams } from '../../../bus/index.js';
import { EventRecord } from '../../../schema/index.js';
import { SECRETS } from './fixtures/company.js';
import { sign_ } from './fixtures/signers.js';
import { startWebhookNode, type WebhookNode } from './fixtures/webhook-node.js';

async function received(node: WebhookNode): Promise<EventRecord[]> {
  const events = await node.messages(Streams.Events);
  return events
    .map((m) => EventRecord.parse(JSON.parse(Buffer.from(m.data).toString('utf8'))))
    .filter((e) => e.type === 'webhook_received');
}

const issue = (sender: string) =>
  JSON.stringify({
    action: 'assigned',
    sender: { login: sender },
    repository: { full_name: 'acme/app' },
    issue: { number: 7, title: 'Login page is blank', assignees: [{ login: 'cy' }] },
  });

t.test(
  'an accepted delivery is recorded as webhook_received in the trace of the wakes it causes',
  async (t) => {
    const node = await startWebhookNode();
    t.teardown(() => node.close());
    const body = issue('someone-outside');
    const res = await node.post(
      '/webhooks/codehost-a',
      body,
      sign_.codehostA(SECRETS.codehostA, body, 'gh-trace-1'),
    );
    t.equal(res.status, 200, res.text);
    const { message, handle } = await node.inbox((m) => m.id.startsWith('codehost-a:gh-trace-1:'));
    t.equal(handle, 'cy');

    // Recorded before the notification is published, so it is stored by the time the wake is.
    const events = await received(node);
    t.equal(events.length, 1, 'one event for the delivery');
    const event = events[0]!;
    t.match(event, {
      category: 'webhook',
      actor: 'webhook:codehost-a',
      failed: false,
      payload: {
        provider: 'codehost-a',
        delivery_id: 'gh-trace-1',
        kind: 'issues',
        pipeline: 'codehost-a',
        seat: null,
      },
    });
    t.match(event.summary, 'Login page is blank');
    t.equal(event.trace_id, message.trace_id, 'the wake carries the delivery trace');
    t.equal(event.timestamp, new Date(message.received_at).toISOString(), 'stamped when it was received');

    const again = await node.post(
      '/webhooks/codehost-a',
      body,
      sign_.codehostA(SECRETS.codehostA, body, 'gh-trace-1'),
    );
    t.same(again.json, { accepted: true, duplicate: true });
    t.equal((await received(node)).length, 1, 'a duplicate delivery records nothing');
  },
);

t.test("an agent's own action is dropped without a webhook_received", async (t) => {
  const node = await startWebhookNode();
  t.teardown(() => node.close());
  const body = issue('ada-app[bot]');
  const res = await node.post(
    '/webhooks/codehost-a',
    body,
    sign_.codehostA(SECRETS.codehostA, body, 'gh-own-1'),
  );
  t.equal(res.status, 200, res.text);
  await node.waitHostLog(
    (l) => l['event'] === 'webhook_own_action_dropped' && l['delivery_id'] === 'gh-own-1',
  );
  t.same(await received(node), []);
});
