import t from 'tap';
import { ensureCatalogue, openMemoryBus, Streams } from '../../../bus/index.js';
import { Arrivals } from '../../../http/index.js';

const decoder = new TextDecoder();

t.test(
  'verified deliveries of one tick share one arrival record, appended before any is answered',
  async (t) => {
    const bus = await openMemoryBus();
    t.teardown(() => bus.close());
    await ensureCatalogue(bus);
    const arrivals = new Arrivals({ bus, nodeId: 'n1' });
    const before = (await bus.streamInfo(Streams.Integrations)).lastSeq;
    const answered = await Promise.all([
      arrivals.record('tracker-b', 'accepted').then(() => bus.streamInfo(Streams.Integrations)),
      arrivals.record('tracker-b', 'accepted'),
      arrivals.record('tracker-b', 'duplicate'),
      arrivals.record('chat/ada', 'accepted'),
    ]);
    const info = answered[0] as { lastSeq: number };
    t.equal(
      info.lastSeq,
      before + 3,
      'one record per surface and outcome, stored when the first is answered',
    );
    const records = [];
    for await (const m of bus.replay(Streams.Integrations, { fromSeq: before + 1 }))
      records.push(JSON.parse(decoder.decode(m.data)) as { surface: string; outcome: string; count: number });
    t.same(
      records.map(({ surface, outcome, count }) => [surface, outcome, count]),
      [
        ['tracker-b', 'accepted', 2],
        ['tracker-b', 'duplicate', 1],
        ['chat/ada', 'accepted', 1],
      ],
    );

    await arrivals.record('tracker-b', 'accepted');
    t.equal((await bus.streamInfo(Streams.Integrations)).lastSeq, before + 4, 'a later tick appends its own');
  },
);
