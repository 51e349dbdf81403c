/**
 * A seat's log bounds what `SVC_SEATS` keeps: once a snapshot is stored, the records the snapshot before it
 * covered and the older snapshots are removed, and every reader still folds the same open needs — the seat's
 * own start, `readmodels.seat_needs` from zero, and one that fell behind a removal — on both engines.
 */
import t from 'tap';
import { ensureCatalogue, openBus, openMemoryBus, Streams, Subjects, type Bus } from '../../../bus/index.js';
import { openSeatLog, type SeatLog } from '../../../actors/seat/seat.log.js';
import { openCheckpoints, runProjection } from '../../../projections/index.js';
import { seatNeedsProjection } from '../../../projections/readmodels/readmodels.seat-needs.js';
import { startNatsServer } from '../../harness/nats-server.js';
import { need } from './seat-log.fixture.js';

const EVERY = 3;
const now = () => new Date('2026-12-05T10:00:00.000Z');

const open = (bus: Bus, troubles: string[] = []): Promise<SeatLog> =>
  openSeatLog({
    bus,
    handle: 'cto',
    node: 'node-a',
    fence: () => undefined,
    now,
    snapshotEvery: EVERY,
    onTrouble: (what) => troubles.push(what),
  });

/** Asks q0..q{n-1}, closing every third question the turn after it was asked. */
async function history(log: SeatLog, n: number, from = 0): Promise<void> {
  for (let i = from; i < from + n; i++) {
    await log.append({ kind: 'need_recorded', need: need(`q${i}`) });
    if (i % 3 === 1)
      await log.append({ kind: 'needs_closed', cause: 'answered', ids: [`q${i - 1}`], by: 'dana', key: `k${i}`, turn_id: null }); // prettier-ignore
  }
}

async function stored(bus: Bus, subject: string): Promise<number[]> {
  const seqs: number[] = [];
  for await (const msg of bus.replay(Streams.Seats, { subject })) seqs.push(msg.seq);
  return seqs;
}

/** `readmodels.seat_needs` run once over the stream (from its checkpoint, when it has one): what it tells. */
async function projected(
  bus: Bus,
  checkpoints: ReturnType<typeof openCheckpoints>,
): Promise<Map<string, string[]>> {
  const told = new Map<string, string[]>();
  const projection = seatNeedsProjection({ onNeeds: (handle, needs) => told.set(handle, needs.map((n) => n.id)) }); // prettier-ignore
  const run = await runProjection({ bus, projection, checkpoints });
  await run.stop();
  return told;
}

const ids = (log: SeatLog) => log.needs().map((n) => n.id);

for (const engine of ['memory', 'jetstream'] as const) {
  t.test(
    `${engine}: the log keeps one snapshot's records behind the newest, and every reader folds the same needs`,
    async (t) => {
      let bus: Bus;
      if (engine === 'memory') bus = await openMemoryBus();
      else bus = await openBus({ type: 'jetstream', url: (await startNatsServer({ t })).url });
      t.teardown(() => bus.close());
      await ensureCatalogue(bus);
      const checkpoints = openCheckpoints(':memory:');
      t.teardown(() => checkpoints.close());

      const log = await open(bus);
      await history(log, 4);
      // A projection that reads now and then falls behind every removal that follows.
      const early = await projected(bus, checkpoints);
      t.same(early.get('cto'), ids(log));

      await history(log, 16, 4);
      const records = await stored(bus, Subjects.seatLog('cto'));
      const snapshots = await stored(bus, Subjects.seatSnapshot('cto'));
      t.equal(snapshots.length, 2, 'the newest snapshot and the one before it are kept');
      t.ok(records.length <= 2 * EVERY, `at most two snapshots' records are kept (${records.length} of 27)`);
      t.ok(records.length >= EVERY, 'the records after the older kept snapshot are all there');

      const reopened = await open(bus);
      t.same(ids(reopened), ids(log), "the seat's next start folds the same open needs");
      // Every multiple of three was answered the turn after it was asked.
      const unanswered = Array.from({ length: 20 }, (_, i) => i).filter((i) => i % 3 !== 0);
      t.same(
        ids(log),
        unanswered.map((i) => `q${i}`),
        'the questions asked and not answered are open',
      );

      t.same(
        (await projected(bus, checkpoints)).get('cto'),
        ids(log),
        'a projection behind the removals catches up',
      );
      t.same(
        (await projected(bus, openCheckpoints(':memory:'))).get('cto'),
        ids(log),
        'a projection from zero too',
      );
    },
  );
}

t.test(
  'appends sent at once are stored one at a time, each snapshot right after the record it folds through',
  async (t) => {
    const bus = await openMemoryBus();
    t.teardown(() => bus.close());
    await ensureCatalogue(bus);
    const log = await open(bus);
    await Promise.all(
      Array.from({ length: 10 }, (_, i) => log.append({ kind: 'need_recorded', need: need(`q${i}`) })),
    );
    const order: Array<{ seq: number; part: string; through?: number }> = [];
    for await (const msg of bus.replay(Streams.Seats, { subject: Subjects.seatLogs })) {
      const body = JSON.parse(new TextDecoder().decode(msg.data)) as { seq?: number };
      order.push({ seq: msg.seq, part: msg.subject.split('.').at(-1) ?? '', ...(body.seq ? { through: body.seq } : {}) }); // prettier-ignore
    }
    const snapshots = order.filter((m) => m.part === 'snapshot');
    t.ok(snapshots.length > 0);
    for (const s of snapshots)
      t.equal(s.through, s.seq - 1, `snapshot ${s.seq} follows the record it folds through`);
    t.same(
      ids(log),
      Array.from({ length: 10 }, (_, i) => `q${i}`),
    );
  },
);

t.test(
  'an unreadable newest snapshot falls back to the one before it and the records after that',
  async (t) => {
    const bus = await openMemoryBus();
    t.teardown(() => bus.close());
    await ensureCatalogue(bus);
    const log = await open(bus);
    await history(log, 12);
    await bus.publish(Subjects.seatSnapshot('cto'), new TextEncoder().encode('{"seq":'));
    const troubles: string[] = [];
    const reopened = await open(bus, troubles);
    t.same(ids(reopened), ids(log));
    t.match(troubles, [/^snapshot \d+$/]);
  },
);
