import t from 'tap';
import {
  ensureCatalogue,
  EVENT_HISTORY_SECONDS,
  InvalidNameError,
  NoStreamForSubjectError,
  SPEND_HISTORY_SECONDS,
  Streams,
  Subjects,
} from '../../bus/index.js';
import { openMemoryBus } from '../../bus/memory/index.js';

t.test('the catalogue creates every stream and bucket, and running it again changes nothing', async (t) => {
  const bus = await openMemoryBus({});
  t.teardown(() => bus.close());
  const first = await ensureCatalogue(bus);
  t.same(first.streams.map((s) => s.name).sort(), Object.values(Streams).sort());
  await bus.publish(Subjects.event('agent_turn_completed'), new TextEncoder().encode('{}'));
  const again = await ensureCatalogue(bus);
  t.equal(again.streams.find((s) => s.name === Streams.Events)?.lastSeq, 1, 'existing messages are kept');
  t.equal(again.eventHistorySeconds, 30 * 86400);
  t.equal(again.spendHistorySeconds, 181 * 86400);
  t.equal(EVENT_HISTORY_SECONDS, 2592000);
  t.equal(SPEND_HISTORY_SECONDS, 15638400);
});

t.test('each spec topic lands in its stream', async (t) => {
  const bus = await openMemoryBus({});
  t.teardown(() => bus.close());
  await ensureCatalogue(bus);
  const data = new TextEncoder().encode('{}');
  const routes: Array<[string, string]> = [
    [Subjects.event('seat.turn.completed'), Streams.Events],
    [Subjects.agentInbox('ada'), Streams.Inbox],
    [Subjects.configRevisionActivated, Streams.Config],
    [Subjects.configRevisionApplied, Streams.Config],
    [Subjects.spend('usage'), Streams.Spend],
    [Subjects.work('item.created'), Streams.Work],
    [Subjects.pages('page.updated'), Streams.Pages],
  ];
  for (const [subject, stream] of routes) t.equal((await bus.publish(subject, data)).stream, stream, subject);
  // Parsed deliveries are routed in place and published as core messages: no stream keeps them.
  await t.rejects(bus.publish(Subjects.notificationsInbound, data), NoStreamForSubjectError);
});

t.test('a seat handle or event type that would widen a subject is refused', async (t) => {
  t.throws(() => Subjects.agentInbox('ada.*'), InvalidNameError);
  t.throws(() => Subjects.agentInbox('>'), InvalidNameError);
  t.throws(() => Subjects.event('turn..done'), InvalidNameError);
});
