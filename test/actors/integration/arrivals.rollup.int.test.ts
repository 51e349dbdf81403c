/**
 * A node whose fold passed over arrival records another node's compaction removed sums no rollup until it has
 * read the rollup that removed them: counts lacking them would lose them for good (ops/webhooks.md
 * "Compaction"). On the memory engine, with the fold as the compaction reads it.
 */
import t from 'tap';
import { ensureCatalogue, openMemoryBus, Streams, Subjects } from '../../../bus/index.js';
import { startArrivalRollups } from '../../../actors/index.js';

const encoder = new TextEncoder();

t.test(
  'a fold that passed over removed records defers the compaction; once it read their rollup, it compacts',
  async (t) => {
    const bus = await openMemoryBus();
    t.teardown(() => bus.close());
    await ensureCatalogue(bus);
    const arrival = { type: 'arrival', surface: 'tracker-a', outcome: 'accepted', count: 1, at: '2026-03-01T00:00:00.000Z', node: 'w' }; // prettier-ignore
    for (let i = 0; i < 4; i++)
      await bus.publish(
        Subjects.integration('tracker-a', 'arrival'),
        encoder.encode(JSON.stringify(arrival)),
      );
    // It read sequences 1 and 4: 2 and 3 were gone, and the rollup that removed them is not folded yet.
    const state = { arrivals: new Map(), sinceRollup: [1, 4], rollupThrough: 0, skippedThrough: 3 };
    const fold = { state: () => state, seq: () => 4, until: () => Promise.resolve(true) };
    const rollups = startArrivalRollups({ bus, fold, nodeId: 'n1', threshold: 1, everyMs: 0 });
    t.teardown(() => rollups.stop());
    const deferred = await rollups.compact();
    t.match(deferred, { outcome: 'deferred', reason: /passed over records through 3/ });
    t.equal((await bus.streamInfo(Streams.Integrations)).lastSeq, 4, 'no rollup appended');
    state.rollupThrough = 3;
    t.match(await rollups.compact(), { outcome: 'compacted', through: 4, removed: 4 });
  },
);
