/**
 * A firing's claim records its progress (ops/schedules.md "Claims"): a claimant that dies between the
 * claim and the wake leaves a claim that is not done, and the next holder, planning the firing again
 * at its takeover, sends the claim's wake and row — once, under the claimant's ids, however the two
 * race. A kill -9 at that instant cannot be placed from outside a child process; here the claimant's
 * inbox publish never returns (or returns late), which is what the store sees of such a crash.
 */
import t, { type Test } from 'tap';
import { claimKey, startScheduler, type SchedulerHost } from '../../actors/index.js';
import { Subjects } from '../../bus/index.js';
import { FiringClaim } from '../../schema/index.js';
import { aSchedule } from '../fixtures/schedules/schedule.js';
import { ManualClock } from '../harness/manual-clock.js';
import { brief, ledger, schedulerBus, silent, wakes, type SchedulerBus } from './fixtures/scheduler-bus.js';
import { stallingBus } from './fixtures/stalling.js';

const dec = new TextDecoder();
const enc = new TextEncoder();

const toInbox = (subject: string): boolean => subject.startsWith('svc.agent.');
const toLedger = (subject: string): boolean => subject === Subjects.event('schedule_fired');

/**
 * node-a holds the duty from 11:59:05 (renewed 11:59:55) and reaches its 12:00 firing of alice with a
 * stalled publish; node-b, whose lease look comes every 10 s, takes the expired duty by 12:00:40.
 */
async function claimantStalls(
  t: Test,
  fx: SchedulerBus,
  match: (subject: string) => boolean,
  catchup = false,
) {
  const schedules = [aSchedule({ catchup })];
  const gate = stallingBus(fx.bus, match);
  const clockA = new ManualClock('2026-01-01T11:59:05Z');
  const a: SchedulerHost = startScheduler({
    bus: gate.bus,
    coord: fx.coord,
    claims: fx.claims,
    nodeId: 'node-a',
    clock: clockA,
    logger: silent,
  });
  await a.plan(schedules);
  t.equal(a.holding(), true);
  const aFired = clockA.advanceTo('2026-01-01T12:00:00Z');
  await gate.atStall;
  const clockB = new ManualClock('2026-01-01T11:59:05Z');
  const b = fx.start('node-b', clockB);
  await b.plan(schedules);
  t.equal(b.holding(), false);
  return { a, aFired, gate, b, clockB };
}

const firingOf = (target_handle: string, catchup = false) => ({
  schedule: aSchedule({ catchup }),
  target_handle,
  scheduled_at: '2026-01-01T12:00:00.000Z',
  outcome: 'fired' as const,
});

const claimOf = async (fx: SchedulerBus, handle: string): Promise<unknown> => {
  const entry = await fx.claims.get(claimKey(firingOf(handle)));
  return entry === null ? null : (JSON.parse(dec.decode(entry.value)) as unknown);
};

t.test(
  'a firing whose claimant died after the claim and before the wake is completed by the next holder, once',
  async (t) => {
    const fx = await schedulerBus(t);
    // node-a never comes back: its publish never returns and its clock never moves again.
    const { b, clockB } = await claimantStalls(t, fx, toInbox);
    t.match(await claimOf(fx, 'alice'), { v: 2, state: 'claimed', node: 'node-a' }, 'the claim is not done');

    await clockB.advanceTo('2026-01-01T12:00:40Z');
    t.equal(b.holding(), true, 'node-b took the expired duty');
    // Without catchup node-b's own plan for 12:00 is a skipped row: the claim's intent wins for alice.
    t.same(brief(await ledger(fx.bus)), ['hourly alice 12:00 fired', 'hourly bob 12:00 skipped_catchup']);
    const sent = await wakes(fx.bus);
    t.same(
      sent.map((w) => [w.handle, w.wake.scheduled_at, w.wake.fired_at, w.message.source]),
      [['alice', '2026-01-01T12:00:00.000Z', '2026-01-01T12:00:00.000Z', 'node-a/scheduler']],
      "one wake, the claimant's",
    );
    t.match(FiringClaim.parse(await claimOf(fx, 'alice')), { state: 'done', row: { outcome: 'fired' } });

    // Another takeover later finds the claim done: nothing more.
    await b.stop();
    const clockC = new ManualClock('2026-01-01T12:00:50Z');
    const c = fx.start('node-c', clockC);
    await c.plan([aSchedule()]);
    t.equal(c.holding(), true);
    t.equal((await ledger(fx.bus)).length, 2);
    t.equal((await wakes(fx.bus)).length, 1);
  },
);

t.test('a claim racing a live claimant yields one wake and one row', async (t) => {
  for (const [stage, match] of [
    ['before its wake', toInbox],
    ['between its wake and its row', toLedger],
  ] as const) {
    await t.test(`the claimant resumes after the completer, paused ${stage}`, async (t) => {
      const fx = await schedulerBus(t);
      const { a, aFired, gate, b, clockB } = await claimantStalls(t, fx, match, true);
      await clockB.advanceTo('2026-01-01T12:00:40Z');
      t.equal(b.holding(), true);
      const rows = ['hourly alice 12:00 fired', 'hourly bob 12:00 fired'];
      t.same(brief(await ledger(fx.bus)), rows, 'node-b completed the claimed firing');
      // The claimant wakes up and finishes its firing: the same ids, stored once.
      gate.release();
      await aFired;
      await a.settled();
      t.same(brief(await ledger(fx.bus)), rows);
      const sent = await wakes(fx.bus);
      t.same(
        sent.map((w) => w.handle),
        ['alice', 'bob'],
      );
      t.equal(sent[0]?.wake.fired_at, '2026-01-01T12:00:00.000Z', "alice's wake is the claimant's");
      t.match(await claimOf(fx, 'alice'), { state: 'done' });
      await a.stop();
    });
  }
});

t.test('an old-shape claim is left alone', async (t) => {
  const fx = await schedulerBus(t);
  // node-a holds the duty until 11:59:55 and dies; an earlier release's claim on alice's 12:00 firing.
  const clockA = new ManualClock('2026-01-01T11:59:05Z');
  const a = startScheduler({ ...fx, nodeId: 'node-a', clock: clockA, logger: silent });
  await a.plan([aSchedule({ catchup: true })]);
  await clockA.advanceTo('2026-01-01T11:59:55Z');
  const old = { node: 'node-a', identity: 'as an earlier release wrote it', epoch: 1 };
  await fx.claims.create(claimKey(firingOf('alice', true)), enc.encode(JSON.stringify(old)));

  const clockB = new ManualClock('2026-01-01T11:59:05Z');
  const b = fx.start('node-b', clockB);
  await b.plan([aSchedule({ catchup: true })]);
  await clockB.advanceTo('2026-01-01T12:00:40Z');
  t.equal(b.holding(), true);
  t.same(brief(await ledger(fx.bus)), ['hourly bob 12:00 fired'], 'an old claim reads as done');
  t.same(
    (await wakes(fx.bus)).map((w) => w.handle),
    ['bob'],
  );
  t.same(await claimOf(fx, 'alice'), old, 'and is not rewritten');
});
