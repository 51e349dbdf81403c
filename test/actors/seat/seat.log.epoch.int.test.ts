/**
 * A seat's records written by a superseded lease holder that reach the bus late (handed to the socket
 * before a pause longer than the fence's margin) are ignored by every reader of the seat's log once a record
 * of a higher epoch was read — the seat's next start, from the records or from a snapshot, and
 * `readmodels.seat_needs` from zero and live — while records without the header (a single-process node,
 * an earlier release) are folded as before. A holder marks its epoch on the log before it reads it, so a
 * late record landing after that read — before the holder's first write there — is ignored by every reader
 * as the holder, which never read it, did not have it; one landing before the mark is read by all; and the
 * compaction removes the marks with the records. On both engines, whose replays carry the header as sent.
 */
import t, { type Test } from 'tap';
import { Streams, Subjects, type Bus } from '../../../bus/index.js';
import { leaseHeaders } from '../../../actors/lease/index.js';
import type { SeatLog } from '../../../actors/seat/seat.log.js';
import { openCheckpoints, runProjection } from '../../../projections/index.js';
import { seatNeedsProjection } from '../../../projections/readmodels/readmodels.seat-needs.js';
import { busFor, engines, fromZero, need, openAs as open } from './seat-log.fixture.js';

const stamp = { at: '2026-12-05T10:00:00.000Z', node: 'node-a' };
const encode = (o: unknown) => new TextEncoder().encode(JSON.stringify(o));

/** A record stored as a paused holder's write lands: straight on the bus, with the headers it was sent with. */
const write = async (bus: Bus, subject: string, body: unknown, headers?: Record<string, string>) =>
  (await bus.publish(subject, encode(body), headers ? { headers } : {})).seq;

/**
 * The epoch 1 holder's late writes: a question and the close of q1, one with the header's canonical
 * spelling (a reader compares names without case); then a record without the header.
 */
async function lateWrites(bus: Bus): Promise<number> {
  const log = Subjects.seatLog('cto');
  await write(bus, log, { kind: 'need_recorded', ...stamp, need: need('late') }, { 'Svc-Lease-Epoch': '1' });
  await write(
    bus,
    log,
    {
      kind: 'needs_closed',
      ...stamp,
      cause: 'answered',
      ids: ['q1'],
      by: 'dana',
      key: 'k-late',
      turn_id: null,
    },
    { 'svc-lease-epoch': '1' },
  );
  return write(bus, log, { kind: 'need_recorded', ...stamp, need: need('unheaded') });
}

const ids = (log: SeatLog) => log.needs().map((n) => n.id);

/** `readmodels.seat_needs` running live on `bus`: what it told, seat by seat, and the running projection. */
async function liveNeeds(t: Test, bus: Bus) {
  const checkpoints = openCheckpoints(':memory:');
  t.teardown(() => checkpoints.close());
  const told: Array<[string, string[]]> = [];
  const projection = seatNeedsProjection({
    onNeeds: (h, needs) => told.push([h, needs.map((n) => n.id)]),
  });
  const live = await runProjection({ bus, projection, checkpoints });
  t.teardown(() => live.stop());
  return { told, live };
}

for (const engine of engines) {
  t.test(
    `${engine}: a superseded holder's late records are ignored by the seat's start and the read model`,
    async (t) => {
      const bus = await busFor(t, engine);
      const { told, live } = await liveNeeds(t, bus);

      const holder = await open(bus, 2);
      await holder.append({ kind: 'need_recorded', need: need('q1') });
      await holder.append({ kind: 'need_recorded', need: need('q2') });
      const last = await lateWrites(bus);

      const expected = ['q1', 'q2', 'unheaded'];
      t.same(
        ids(await open(bus, 3)),
        expected,
        "the seat's next start folds the unheaded record, not the late ones",
      );
      t.ok(await live.until(last, 10_000));
      t.same(told.at(-1), ['cto', expected], 'the live read model ignores them too');
      t.notOk(
        told.some(([, needs]) => needs.includes('late')),
        'and never told the late question',
      );
      t.same(await fromZero(bus), expected, 'the read model from zero too');

      // A later holder's records are folded: the mark only ever rises.
      await write(bus, Subjects.seatLog('cto'), { kind: 'need_recorded', ...stamp, need: need('q3') }, leaseHeaders(3)); // prettier-ignore
      t.same(ids(await open(bus, 3)), [...expected, 'q3']);
    },
  );

  t.test(
    `${engine}: a start standing on a snapshot knows its epoch and passes over a late snapshot`,
    async (t) => {
      const bus = await busFor(t, engine);
      const holder = await open(bus, 2, 2);
      await holder.append({ kind: 'need_recorded', need: need('q1') });
      await holder.append({ kind: 'need_recorded', need: need('q2') }); // the snapshot through q2, at epoch 2
      // The old holder's snapshot through an earlier record, stored after the new holder's one.
      await write(bus, Subjects.seatSnapshot('cto'), { ...stamp, seq: 1, needs: [] }, leaseHeaders(1));
      await lateWrites(bus);

      const troubles: string[] = [];
      t.same(ids(await open(bus, 3, 2, troubles)), ['q1', 'q2', 'unheaded']);
      t.equal(troubles.length, 3, `the late snapshot and records are told (${troubles.join(', ')})`);
      t.same(await fromZero(bus), ['q1', 'q2', 'unheaded'], 'the read model from zero folds the same');
    },
  );
}

/** The stream sequences kept on one subject of `SVC_SEATS`. */
async function stored(bus: Bus, subject: string): Promise<number[]> {
  const seqs: number[] = [];
  for await (const msg of bus.replay(Streams.Seats, { subject })) seqs.push(msg.seq);
  return seqs;
}

for (const engine of engines) {
  t.test(
    `${engine}: a late record landing after the new holder opened the log, before its first write there, is ignored by every reader; one landing before is read by all`,
    async (t) => {
      const bus = await busFor(t, engine);
      const { told, live } = await liveNeeds(t, bus);
      const log = Subjects.seatLog('cto');

      const old = await open(bus, 1);
      await old.append({ kind: 'need_recorded', need: need('q1') });
      // The old holder's write that lands before the next holder opens the log: read by everyone.
      await write(bus, log, { kind: 'need_recorded', ...stamp, need: need('early') }, leaseHeaders(1));
      const holder = await open(bus, 2);
      t.same(ids(holder), ['q1', 'early'], 'the new holder reads the record that landed before it opened');
      // Its writes landing after the new holder read the log and before it wrote there: a question, the
      // close of q1, and a snapshot of the log without q1.
      await write(bus, log, { kind: 'need_recorded', ...stamp, need: need('late') }, leaseHeaders(1));
      const close = { kind: 'needs_closed', ...stamp, cause: 'answered', ids: ['q1'], by: 'dana', key: 'k-late', turn_id: null }; // prettier-ignore
      const closed = await write(bus, log, close, leaseHeaders(1));
      await write(bus, Subjects.seatSnapshot('cto'), { ...stamp, seq: closed, needs: [need('early'), need('late')] }, leaseHeaders(1)); // prettier-ignore
      await holder.append({ kind: 'need_recorded', need: need('q2') });

      const expected = ['q1', 'early', 'q2'];
      t.same(ids(holder), expected, 'the holder never had the late records');
      const troubles: string[] = [];
      t.same(ids(await open(bus, 3, 50, troubles)), expected, "the seat's next start agrees with it");
      t.equal(troubles.length, 3, `the late snapshot and records are told (${troubles.join(', ')})`);
      const [last] = (await stored(bus, log)).slice(-1);
      t.ok(await live.until(last ?? 0, 10_000));
      t.same(told.at(-1), ['cto', expected], 'so does the live read model');
      t.notOk(
        told.some(([, needs]) => needs.includes('late')),
        'which never told the late question',
      );
      t.same(await fromZero(bus), expected, 'and the read model from zero');
      t.equal((await stored(bus, Subjects.seatHeld('cto'))).length, 3, 'one mark per opening epoch');
    },
  );

  t.test(`${engine}: the compaction removes the marks below the records it keeps`, async (t) => {
    const bus = await busFor(t, engine);
    const held = Subjects.seatHeld('cto');
    for (const epoch of [1, 2, 3]) {
      const log = await open(bus, epoch, 2);
      await log.append({ kind: 'need_recorded', need: need(`q${epoch}`) });
    }
    await open(bus, 3, 2); // a retried open of epoch 3 stores its mark once
    t.equal((await stored(bus, held)).length, 3, 'a mark per epoch');

    const holder = await open(bus, 4, 2);
    for (const id of ['q4', 'q5', 'q6', 'q7', 'q8']) await holder.append({ kind: 'need_recorded', need: need(id) }); // prettier-ignore
    const snapshots: number[] = [];
    for await (const msg of bus.replay(Streams.Seats, { subject: Subjects.seatSnapshot('cto') }))
      snapshots.push((JSON.parse(new TextDecoder().decode(msg.data)) as { seq: number }).seq);
    t.equal(snapshots.length, 2, 'two snapshots kept');
    const marks = await stored(bus, held);
    t.ok(
      marks.every((seq) => seq > (snapshots[0] ?? 0)),
      `only marks after the older snapshot's records are kept (${marks.join(', ')})`,
    );
    t.same(marks, [], "every mark was below the holder's first kept record");

    const expected = ['q1', 'q2', 'q3', 'q4', 'q5', 'q6', 'q7', 'q8'];
    t.same(ids(holder), expected);
    t.same(ids(await open(bus, 5, 2)), expected, 'the next start reads the same needs');
    t.same(await fromZero(bus), expected, 'the read model from zero too');
  });
}
