/**
 * Two ways a superseded lease holder's late writes could still take a newer holder's records from the
 * seat's log, and how the log keeps them. A late record that takes the de-duplication id of a step the new
 * holder then writes would make that write a duplicate while every reader ignores the late one by its
 * epoch: the step is written again under an id of the holder's epoch, and read; a step the next holder does
 * again over a record every reader keeps is still stored once. And a superseded holder's compaction purges
 * nothing once a newer holder's epoch mark is stored. On both engines.
 */
import t from 'tap';
import { Streams, Subjects, type Bus } from '../../../bus/index.js';
import type { SeatLog } from '../../../actors/seat/seat.log.js';
import { busFor, engines, fromZero, need, openAs } from './seat-log.fixture.js';

const ids = (log: SeatLog) => log.needs().map((n) => n.id);

/** The ids of the records kept on the seat's log, in stream order. */
async function needIds(bus: Bus): Promise<string[]> {
  const kept: string[] = [];
  for await (const msg of bus.replay(Streams.Seats, { subject: Subjects.seatLog('cto') }))
    kept.push((JSON.parse(new TextDecoder().decode(msg.data)) as { need: { id: string } }).need.id);
  return kept;
}

for (const engine of engines) {
  t.test(
    `${engine}: a step whose id a superseded holder's late record took after the new holder's mark is written again, and read`,
    async (t) => {
      const bus = await busFor(t, engine);
      const old = await openAs(bus, 1);
      await old.append({ kind: 'need_recorded', need: need('q1') });
      const holder = await openAs(bus, 2);
      // The old holder's question q2, handed to the socket before its pause, lands after the new holder's
      // mark, under the id the new holder's own q2 is then written with.
      await old.append({ kind: 'need_recorded', need: need('q2') });
      await holder.append({ kind: 'need_recorded', need: need('q2') });

      t.same(ids(holder), ['q1', 'q2']);
      t.same(await needIds(bus), ['q1', 'q2', 'q2'], "the holder's q2 is stored beside the late one");
      t.same(ids(await openAs(bus, 3)), ['q1', 'q2'], "the seat's next start reads the holder's q2");
      t.same(await fromZero(bus), ['q1', 'q2'], 'and so does the read model');
      await holder.append({ kind: 'need_recorded', need: need('q2') });
      t.equal((await needIds(bus)).length, 3, 'a repeat of the written-again step is stored once');
    },
  );

  t.test(
    `${engine}: a step the next holder does again over a record every reader keeps is stored once`,
    async (t) => {
      const bus = await busFor(t, engine);
      const old = await openAs(bus, 1);
      await old.append({ kind: 'need_recorded', need: need('q1') });
      // Landing before the next holder's mark: late, but read by all, the next holder included.
      await old.append({ kind: 'need_recorded', need: need('q2') });
      const holder = await openAs(bus, 2);
      // A resumed turn's ask_human asks again with the same need id.
      await holder.append({ kind: 'need_recorded', need: need('q1') });
      await holder.append({ kind: 'need_recorded', need: need('q2') });

      t.same(await needIds(bus), ['q1', 'q2'], 'each stored once');
      t.same(ids(await openAs(bus, 3)), ['q1', 'q2']);
      t.same(await fromZero(bus), ['q1', 'q2']);
    },
  );

  t.test(
    `${engine}: a superseded holder's compaction purges nothing once a newer holder marked the log`,
    async (t) => {
      const bus = await busFor(t, engine);
      const troubles: string[] = [];
      const old = await openAs(bus, 1, 2, troubles);
      await old.append({ kind: 'need_recorded', need: need('q1') });
      await old.append({ kind: 'need_recorded', need: need('q2') }); // its first snapshot
      const holder = await openAs(bus, 2, 2);
      await holder.append({ kind: 'need_recorded', need: need('q3') });
      // The old holder goes on writing (its fence let them through): two snapshots, each followed by a
      // compaction whose bounds, from its own snapshots, pass the new holder's mark and record.
      for (const id of ['a', 'b', 'c', 'd']) await old.append({ kind: 'need_recorded', need: need(id) });

      t.ok(troubles.includes('compaction not done'), `the old holder tells it (${troubles.join(', ')})`);
      t.same((await needIds(bus)).slice(0, 3), ['q1', 'q2', 'q3'], 'every record is kept');
      t.same(
        ids(await openAs(bus, 3, 2)),
        ['q1', 'q2', 'q3'],
        "the seat's next start reads the new holder's record",
      );
      t.same(await fromZero(bus), ['q1', 'q2', 'q3'], 'and so does the read model');
    },
  );
}
