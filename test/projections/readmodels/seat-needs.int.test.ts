/**
 * `readmodels.seat_needs` boots from its checkpoint: a restart folds only the seat log records stored after
 * it (an unreadable record before it is not read again), still tells each seat's open needs once, seats
 * with none not at all, then every change as records are appended.
 */
import t from 'tap';
import { ensureCatalogue, openMemoryBus, Streams, Subjects, type Bus } from '../../../bus/index.js';
import { openCheckpoints, runProjection, type Projection } from '../../../projections/index.js';
import {
  seatNeedsProjection,
  type SeatNeedsState,
} from '../../../projections/readmodels/readmodels.seat-needs.js';
import type { SeatNeed } from '../../../schema/index.js';

const encode = (o: unknown) => new TextEncoder().encode(JSON.stringify(o));
const stamp = { at: '2026-11-23T12:00:00.000Z', node: 'node-a' };

const need = (id: string, to = 'dana'): SeatNeed => ({
  id,
  to,
  question: `Question ${id}?`,
  context: null,
  urgency: 'normal',
  asked_at: '2026-01-02T03:04:05.000Z',
  turn_id: null,
});

const asked = async (bus: Bus, handle: string, n: SeatNeed): Promise<number> =>
  (await bus.publish(Subjects.seatLog(handle), encode({ kind: 'need_recorded', ...stamp, need: n }))).seq;
const closed = async (bus: Bus, handle: string, ids: string[], key: string): Promise<number> =>
  (
    await bus.publish(
      Subjects.seatLog(handle),
      encode({ kind: 'needs_closed', ...stamp, cause: 'withdrawn', ids, by: handle, key, turn_id: null }),
    )
  ).seq;
const unreadable = async (bus: Bus, handle: string): Promise<number> =>
  (await bus.publish(Subjects.seatLog(handle), new TextEncoder().encode('{"kind":"nonsense"'))).seq;

/** The seat needs projection, recording what it tells, what it skips and every sequence it folds. */
function seatNeeds() {
  const told: Array<[string, string[]]> = [];
  const troubles: number[] = [];
  const applied: number[] = [];
  const base = seatNeedsProjection({
    onNeeds: (handle, open) => told.push([handle, open.map((q) => q.id)]),
    onTrouble: (seq) => troubles.push(seq),
  });
  const projection: Projection<SeatNeedsState> = {
    ...base,
    apply: (state, message) => {
      applied.push(message.seq);
      base.apply(state, message);
    },
  };
  return { projection, told, troubles, applied };
}

t.test(
  'a boot from the checkpoint folds only the records after it and tells each open seat once',
  async (t) => {
    const bus = await openMemoryBus();
    t.teardown(() => bus.close());
    await ensureCatalogue(bus);
    const checkpoints = openCheckpoints(':memory:');
    t.teardown(() => checkpoints.close());

    const bad = await unreadable(bus, 'cto');
    await asked(bus, 'cto', need('q1'));
    await asked(bus, 'dana', need('q2', 'eve'));
    await closed(bus, 'dana', ['q2'], 'k1');
    // A snapshot through a record the fold has already passed changes nothing (here it even disagrees).
    await bus.publish(Subjects.seatSnapshot('cto'), encode({ ...stamp, seq: 2, needs: [] }));

    const first = seatNeeds();
    const one = await runProjection({ bus, projection: first.projection, checkpoints });
    t.equal(one.boot.from, 'zero');
    t.same(first.troubles, [bad], 'the unreadable record is skipped with a warning');
    t.same(first.told, [['cto', ['q1']]], 'each seat with open needs told once; dana, with none, not told');
    await one.stop();
    const checkpointSeq = checkpoints.load('readmodels.seat_needs')?.seq ?? 0;
    t.ok(checkpointSeq >= bad + 3, 'the stop leaves a checkpoint past the history');

    // Asked while the node was down.
    const later = await asked(bus, 'cto', need('q3'));
    await asked(bus, 'eve', need('q4', 'cto'));

    const second = seatNeeds();
    const two = await runProjection({ bus, projection: second.projection, checkpoints });
    t.teardown(() => two.stop());
    t.match(two.boot, { from: 'checkpoint', checkpointSeq });
    t.ok(
      second.applied.every((seq) => seq > checkpointSeq),
      `no record at or before the checkpoint is folded (folded ${second.applied.join(', ')})`,
    );
    t.same(second.applied, [later, later + 1]);
    t.same(second.troubles, [], 'the unreadable record before the checkpoint is not read again');
    t.same(
      second.told,
      [
        ['cto', ['q1', 'q3']],
        ['eve', ['q4']],
      ],
      'needs asked before the restart are still told, with those asked while it was down',
    );

    // Live: each change is told as it is appended; an unreadable record is skipped with a warning.
    second.told.length = 0;
    const close = await closed(bus, 'cto', ['q1'], 'k2');
    const badLive = await unreadable(bus, 'eve');
    await closed(bus, 'eve', ['q4'], 'k3');
    const again = await closed(bus, 'eve', ['q4'], 'k4');
    t.ok(await two.until(again, 30_000));
    t.ok(close < badLive);
    t.same(second.told, [
      ['cto', ['q3']],
      ['eve', []],
    ]);
    t.same(second.troubles, [badLive]);
  },
);

t.test(
  'a checkpoint this version cannot read is dropped and the log folded from its first record',
  async (t) => {
    const bus = await openMemoryBus();
    t.teardown(() => bus.close());
    await ensureCatalogue(bus);
    const checkpoints = openCheckpoints(':memory:');
    t.teardown(() => checkpoints.close());
    await asked(bus, 'cto', need('q1'));
    const seq = await asked(bus, 'cto', need('q2'));
    checkpoints.save({
      name: 'readmodels.seat_needs',
      version: 1,
      stream: Streams.Seats,
      seq,
      state: { seats: 7 },
    });
    const run = seatNeeds();
    const running = await runProjection({ bus, projection: run.projection, checkpoints });
    t.teardown(() => running.stop());
    t.equal(running.boot.from, 'zero');
    t.same(run.told, [['cto', ['q1', 'q2']]]);
  },
);
