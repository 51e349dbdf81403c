import t from 'tap';
import {
  ensureCatalogue,
  openMemoryBus,
  publishEvent,
  Streams,
  Subjects,
  UnmappedEventTypeError,
  newEvent,
} from '../../bus/index.js';

const base = { source: 'test', summary: 's', actor: 'system' } as const;

t.test(
  'publishEvent stores a mapped type once per id, refuses unmapped types and wrong categories, emits stream-only types',
  async (t) => {
    const bus = await openMemoryBus();
    t.teardown(() => bus.close());
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
    const sub = bus.subscribe(Subjects.event('agent_turn_progress'), (m) =>
      seen.push(new TextDecoder().decode(m.data)),
    );
    t.teardown(() => sub.stop());
    const progress = newEvent({ ...base, type: 'agent_turn_progress', category: 'lifecycle' });
    t.equal(await publishEvent(bus, progress), null, 'emitted, not acknowledged by a stream');
    t.equal(seen.length, 1, 'live subscribers see it');
    t.equal((await bus.streamInfo(Streams.Events)).messages, 1, 'never stored');
  },
);
