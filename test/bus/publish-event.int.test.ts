import t, { type Test } from 'tap';
import {
  ensureCatalogue,
  openBus,
  openMemoryBus,
  publishEvent,
  Streams,
  Subjects,
  UnmappedEventTypeError,
  newEvent,
  type Bus,
} from '../../bus/index.js';
import { startNatsServer } from '../harness/nats-server.js';
import { eventually } from './contract-helpers.js';

const base = { source: 'test', summary: 's', actor: 'system' } as const;

t.test(
  'publishEvent stores a mapped type once per id, refuses unmapped types and wrong categories, emits stream-only types',
  async (t) => {
    const bus = await openMemoryBus();
    t.teardown(() => bus.close());
    await checkAdmission(t, bus);
  },
);

t.test('on JetStream too, a stream-only type reaches live subscribers and is never stored', async (t) => {
  const server = await startNatsServer({ t });
  const bus = await openBus({ type: 'jetstream', url: server.url });
  t.teardown(() => bus.close());
  await checkAdmission(t, bus);
});

async function checkAdmission(t: Test, bus: Bus): Promise<void> {
  {
    await ensureCatalogue(bus);
    const created = newEvent({ ...base, type: 'TaskCreated', category: 'task' });
    const ack = await publishEvent(bus, created);
    t.equal(ack?.duplicate, false);
    t.equal((await publishEvent(bus, created))?.duplicate, true, 'the id is the message id');
    t.equal((await bus.streamInfo(Streams.Events)).messages, 1);

    await t.rejects(
      publishEvent(bus, newEvent({ ...base, type: 'made_up', category: 'system' })),
      UnmappedEventTypeError,
    );
    await t.rejects(
      publishEvent(bus, newEvent({ ...base, type: 'TaskCreated', category: 'system' })),
      UnmappedEventTypeError,
    );

    const seen: string[] = [];
    const sub = bus.subscribe(Subjects.liveEvent('agent_turn_progress'), (m) =>
      seen.push(new TextDecoder().decode(m.data)),
    );
    t.teardown(() => sub.stop());
    await t.rejects(
      publishEvent(bus, newEvent({ ...base, type: 'agent_turn_progress', category: 'system' })),
      UnmappedEventTypeError,
      'an emitted type carries the category its exclusion declares',
    );
    const progress = newEvent({ ...base, type: 'agent_turn_progress', category: 'lifecycle' });
    t.equal(await publishEvent(bus, progress), null, 'emitted, not acknowledged by a stream');
    // A stored event after it: once that is on the stream, the emitted one would be too, had it been kept.
    await publishEvent(bus, newEvent({ ...base, type: 'TaskCreated', category: 'task' }));
    t.ok(await eventually(async () => seen.length === 1, 5_000));
    t.equal(seen.length, 1, 'live subscribers see it');
    t.equal((await bus.streamInfo(Streams.Events)).messages, 2, 'never stored');
  }
}
