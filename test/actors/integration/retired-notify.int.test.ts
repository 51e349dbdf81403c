/**
 * Upgrading a store that still has the retired `SVC_NOTIFY` work queue (ops/webhooks.md "Upgrading"): the
 * notifications it holds are routed to the seats they name, once, and the stream is deleted, on both engines.
 * On JetStream the deletion is what keeps the core-published notifications from being stored again.
 */
import { pino } from 'pino';
import t, { type Test } from 'tap';
import { drainRetiredNotify, openRouter, peopleFrom } from '../../../actors/index.js';
import {
  ensureCatalogue,
  openBus,
  Retention,
  StreamNotFoundError,
  Subjects,
  type Bus,
} from '../../../bus/index.js';
import { openMemoryBus } from '../../../bus/memory/index.js';
import { InboxMessage } from '../../../schema/index.js';
import { notification } from './fixtures/notification.js';
import { startNatsServer } from '../../harness/nats-server.js';

const logger = pino({ level: 'silent' });
const encoder = new TextEncoder();
const STREAM = 'SVC_NOTIFY';

/** The stream as earlier versions created it, holding `count` notifications nobody routed yet. */
async function leftOver(bus: Bus, count: number): Promise<void> {
  await ensureCatalogue(bus);
  await bus.ensureStream({
    name: STREAM,
    subjects: [Subjects.notificationsInbound],
    retention: Retention.WorkQueue,
  });
  for (let n = 1; n <= count; n++)
    await bus.publish(Subjects.notificationsInbound, encoder.encode(JSON.stringify(notification(n))), {
      msgId: notification(n).id,
    });
}

async function drained(t: Test, bus: Bus, count: number): Promise<string[]> {
  const woken: string[] = [];
  const inbox = bus.subscribe(Subjects.agentInboxes, (msg) => {
    woken.push(InboxMessage.parse(JSON.parse(new TextDecoder().decode(msg.data))).id);
  });
  t.teardown(() => inbox.stop());
  const router = await openRouter({ bus, people: () => peopleFrom({ name: 'Acme', roles: [{ name: 'Cy' }] }), logger }); // prettier-ignore
  await leftOver(bus, count);
  const drain = await drainRetiredNotify({ bus, router, logger, checkEveryMs: 10 });
  t.teardown(() => drain.stop());
  await drain.retired;
  return woken;
}

async function scenario(t: Test, bus: Bus): Promise<void> {
  const woken = await drained(t, bus, 3);
  t.same(
    [...woken].sort(),
    ['codehost-a:cy:d-1:cy', 'codehost-a:cy:d-2:cy', 'codehost-a:cy:d-3:cy'],
    'each left-over notification wakes its seat once',
  );
  t.same((await bus.streamInfo('SVC_INBOX')).messages, 3, 'three wakes are stored');
  await t.rejects(bus.streamInfo(STREAM), StreamNotFoundError, 'the retired stream is gone');
  bus.emit(Subjects.notificationsInbound, encoder.encode('{}'));
  await t.rejects(bus.streamInfo(STREAM), StreamNotFoundError, 'a core notification is not stored again');
}

t.test('memory engine: left-over notifications are routed and the stream deleted', async (t) => {
  const bus = await openMemoryBus();
  t.teardown(() => bus.close());
  await scenario(t, bus);
});

t.test('JetStream: left-over notifications are routed and the stream deleted', async (t) => {
  const server = await startNatsServer({ t });
  const bus = await openBus({ type: 'jetstream', url: server.url });
  t.teardown(() => bus.close());
  await scenario(t, bus);
});

t.test('an empty retired stream is deleted at once; a store without it is left alone', async (t) => {
  const bus = await openMemoryBus();
  t.teardown(() => bus.close());
  const router = await openRouter({ bus, people: () => peopleFrom(null), logger });
  await leftOver(bus, 0);
  await (
    await drainRetiredNotify({ bus, router, logger })
  ).retired;
  await t.rejects(bus.streamInfo(STREAM), StreamNotFoundError);
  const again = await drainRetiredNotify({ bus, router, logger });
  await again.retired;
  await again.stop();
  t.pass('nothing to drain');
});
