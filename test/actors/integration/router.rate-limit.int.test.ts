/**
 * `notification_rate_limit` (ops/config.md "Notification rate limit"): the router wakes a seat at most that many
 * times a minute; each notification over the limit is recorded as one `NotificationSkipped` event naming the
 * recipient and the reason, and wakes nobody. 0 means no limit.
 */
import { pino } from 'pino';
import t, { type Test } from 'tap';
import { openRouter, peopleFrom } from '../../../actors/index.js';
import { ensureCatalogue, Subjects, type Bus } from '../../../bus/index.js';
import { openMemoryBus } from '../../../bus/memory/index.js';
import { EventRecord, InboxMessage } from '../../../schema/index.js';
import { notification } from './fixtures/notification.js';

const decode = (data: Uint8Array): unknown => JSON.parse(new TextDecoder().decode(data));

async function routed(t: Test, limit: number, count: number) {
  const bus: Bus = await openMemoryBus();
  t.teardown(() => bus.close());
  await ensureCatalogue(bus);
  const wakes: InboxMessage[] = [];
  const skips: EventRecord[] = [];
  let seen = 0;
  let wake: () => void = () => {};
  const done = new Promise<void>((resolve) => (wake = resolve));
  const counted = (): void => {
    seen += 1;
    if (seen === count) wake();
  };
  const inbox = bus.subscribe(Subjects.agentInboxes, (msg) => {
    wakes.push(InboxMessage.parse(decode(msg.data)));
    counted();
  });
  const events = bus.subscribe(Subjects.event('NotificationSkipped'), (msg) => {
    skips.push(EventRecord.parse(decode(msg.data)));
    counted();
  });
  const router = await openRouter({
    bus,
    people: () => peopleFrom({ name: 'Acme', roles: [{ name: 'Cy' }] }),
    rateLimit: () => limit,
    nodeId: 'node-0',
    logger: pino({ level: 'silent' }),
  });
  t.teardown(async () => {
    inbox.stop();
    events.stop();
  });
  for (let n = 1; n <= count; n++) await router.route(notification(n));
  await done;
  return { wakes, skips };
}

t.test('a seat past its limit in a minute is not woken; each skip is one NotificationSkipped', async (t) => {
  const { wakes, skips } = await routed(t, 2, 3);
  t.same(
    wakes.map((w) => w.id),
    ['codehost-a:cy:d-1:cy', 'codehost-a:cy:d-2:cy'],
    'the first two wake cy',
  );
  t.equal(skips.length, 1, 'the third is skipped');
  t.match(skips[0], {
    type: 'NotificationSkipped',
    category: 'notification',
    agent_id: 'cy',
    payload: {
      recipient: 'cy',
      reason: 'rate_limited',
      limit_per_minute: 2,
      notification: 'codehost-a:cy:d-3',
    },
  });
});

t.test('a limit of 0 wakes the seat for every notification', async (t) => {
  const { wakes, skips } = await routed(t, 0, 4);
  t.equal(wakes.length, 4);
  t.equal(skips.length, 0);
});
