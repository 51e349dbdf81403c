/**
 * Dedup holds across nodes: two nodes on one real nats-server (JetStream) receive the same deliveries;
 * each unique delivery is stored and routed once, whichever node took it and however often it came.
 */
import t from 'tap';
import { openBus, Streams } from '../../../bus/index.js';
import { startNatsServer } from '../../harness/nats-server.js';
import { SECRETS } from './fixtures/company.js';
import { sign_ } from './fixtures/signers.js';
import { startWebhookNode } from './fixtures/webhook-node.js';

t.test('two nodes on JetStream store and route each delivery once', async (t) => {
  const server = await startNatsServer({ t });
  const a = await startWebhookNode({ bus: await openBus({ type: 'jetstream', url: server.url }) });
  t.teardown(() => a.close());
  const b = await startWebhookNode({ bus: await openBus({ type: 'jetstream', url: server.url }) });
  t.teardown(() => b.close());
  const bodies = [1, 2, 3].map((i) =>
    JSON.stringify({
      event: 'issue',
      data: { id: `i${i}`, description_stripped: '@cy' },
      activity: { actor: { id: 'u' } },
    }),
  );
  const answers: boolean[] = [];
  for (const [i, body] of bodies.entries()) {
    for (const node of [a, b, a]) {
      const res = await node.post(
        '/webhooks/tracker-b',
        body,
        sign_.trackerB(SECRETS.trackerB, body, `fleet-${i}`),
      );
      t.equal(res.status, 200);
      answers.push(res.json?.['duplicate'] === true);
    }
  }
  t.same(answers, [false, true, true, false, true, true, false, true, true], 'only the first arrival is new');
  t.equal((await a.messages(Streams.Webhooks)).length, 3, 'stored once each');
  for (const [i, body] of bodies.entries()) {
    const want = JSON.stringify(JSON.parse(body));
    const seen = () =>
      [...a.allInbox(), ...b.allInbox()].filter(
        (e) => JSON.stringify((e.message.payload['notification'] as { payload?: unknown }).payload) === want,
      );
    await a.inbox(
      (m) => JSON.stringify((m.payload['notification'] as { payload?: unknown }).payload) === want,
    );
    t.ok(seen().length >= 1, `delivery ${i} routed`);
  }
  const info = await a.bus.streamInfo(Streams.Inbox);
  t.equal(info.lastSeq, 3, 'one inbox message per unique delivery across both nodes');
});
