/**
 * Claims completed late (ops/schedules.md "Claims"): the next holder completes every unfinished claim up
 * to 2 h old, not only one its catchup plans again (the schedule may have fired since), leaves older ones
 * alone, and does not record a second row for a claimant that stored its row and died before marking the
 * claim done, however late it comes; nor does a claimant or a completer paused before its row and resumed
 * after the other stored it, past the events stream's 2 min duplicate window. The store's clock follows
 * the nodes' (duplicate windows age with it).
 */
import t, { type Test } from 'tap';
import { claimKey, startScheduler } from '../../actors/index.js';
import { Subjects, type Bus, type Kv } from '../../bus/index.js';
import { FiringClaim, SCHEDULE_FIRED } from '../../schema/index.js';
import { aSchedule } from '../fixtures/schedules/schedule.js';
import { ManualClock } from '../harness/manual-clock.js';
import { brief, ledger, schedulerBus, silent, wakes, type SchedulerBus } from './fixtures/scheduler-bus.js';
import { stallingBus, stallingUpdate, type Stall } from './fixtures/stalling.js';

const dec = new TextDecoder();
const alice1200 = claimKey({
  schedule: aSchedule(),
  target_handle: 'alice',
  scheduled_at: '2026-01-01T12:00:00.000Z',
  outcome: 'fired',
});

interface Stalled {
  readonly bus?: Stall<Bus>;
  readonly claims?: Stall<Kv>;
}

/**
 * node-a holds the duty from 11:59:05 and reaches its 12:00 firing of alice, where it stops for good
 * (`stall`: at its wake publish, or at marking the claim done); node-b boots at `takeoverAt` and takes
 * the duty. The store's clock is the later of the two nodes'.
 */
async function claimantDies(t: Test, stall: (fx: SchedulerBus) => Stalled, takeoverAt: string) {
  const clocks: ManualClock[] = [];
  const fx = await schedulerBus(t, { clock: () => Math.max(...clocks.map((c) => c.now().getTime())) });
  const clockA = new ManualClock('2026-01-01T11:59:05Z');
  clocks.push(clockA);
  const stalled = stall(fx);
  const a = startScheduler({
    bus: stalled.bus?.view ?? fx.bus,
    coord: fx.coord,
    claims: stalled.claims?.view ?? fx.claims,
    nodeId: 'node-a',
    clock: clockA,
    logger: silent,
  });
  await a.plan([aSchedule()]);
  t.equal(a.holding(), true);
  void clockA.advanceTo('2026-01-01T12:00:00Z');
  await (stalled.bus ?? stalled.claims)!.atStall;
  const clockB = new ManualClock(takeoverAt);
  clocks.push(clockB);
  const b = fx.start('node-b', clockB);
  await b.plan([aSchedule()]);
  t.equal(b.holding(), true, `node-b holds the duty from ${takeoverAt.slice(11, 19)}`);
  await b.settled();
  const entry = await fx.claims.get(alice1200);
  const claim = FiringClaim.parse(JSON.parse(dec.decode(entry!.value)));
  return { fx, claim };
}

const atWake = (fx: SchedulerBus): Stalled => ({
  bus: stallingBus(fx.bus, (subject) => subject.startsWith('svc.agent.')),
});
const atDone = (fx: SchedulerBus): Stalled => ({ claims: stallingUpdate(fx.claims) });

t.test(
  'a holder taking the duty after the schedule fired again completes the older unfinished claim too',
  async (t) => {
    const { fx, claim } = await claimantDies(t, atWake, '2026-01-01T13:00:30Z');
    t.same(
      brief(await ledger(fx.bus)).sort(),
      ['hourly alice 12:00 fired', 'hourly alice 13:00 skipped_catchup', 'hourly bob 13:00 skipped_catchup'],
      "alice's 12:00 firing is sent; 13:00 is the catchup's",
    );
    t.same(
      (await wakes(fx.bus)).map((w) => [w.handle, w.wake.scheduled_at, w.message.source]),
      [['alice', '2026-01-01T12:00:00.000Z', 'node-a/scheduler']],
      "one wake, the claimant's",
    );
    t.equal(claim.state, 'done');
  },
);

t.test('an unfinished claim is completed until 2 h after it was made, and left alone after', async (t) => {
  await t.test('1 h 59 min after', async (t) => {
    const { fx, claim } = await claimantDies(t, atWake, '2026-01-01T13:59:30Z');
    t.same(
      (await wakes(fx.bus)).map((w) => [w.handle, w.wake.scheduled_at]),
      [['alice', '2026-01-01T12:00:00.000Z']],
    );
    t.ok(brief(await ledger(fx.bus)).includes('hourly alice 12:00 fired'));
    t.equal(claim.state, 'done');
  });
  await t.test('2 h after', async (t) => {
    const { fx, claim } = await claimantDies(t, atWake, '2026-01-01T14:00:30Z');
    t.same(await wakes(fx.bus), [], 'its wake may have been stored past the inbox window: none is sent');
    t.notOk(
      brief(await ledger(fx.bus)).some((r) => r.includes('12:00')),
      'nor its row',
    );
    t.equal(claim.state, 'claimed', 'the claim is left as it was');
  });
});

t.test(
  'a completer more than 2 min late does not record again the row its claimant stored before dying',
  async (t) => {
    // node-a sent alice's wake and row at 12:00 and died marking the claim done; node-b comes at 12:10.
    const { fx, claim } = await claimantDies(t, atDone, '2026-01-01T12:10:00Z');
    t.same(brief(await ledger(fx.bus)), ['hourly alice 12:00 fired', 'hourly bob 12:00 skipped_catchup']);
    t.equal((await wakes(fx.bus)).length, 1, 'one wake');
    t.match(claim, { state: 'done', row: { outcome: 'fired' } }, 'the claim is marked done');
  },
);

const toLedger = (subject: string): boolean => subject === Subjects.event(SCHEDULE_FIRED);

t.test(
  'a claimant paused between its wake and its row, resumed more than 2 min after a peer completed its firing, stores no second row',
  async (t) => {
    // node-a woke alice at 12:00 and froze before its row; node-b completes the claim at 12:00:40, and the
    // store's clock is 12:03 (past the events stream's duplicate window) when node-a's row reaches it.
    const clocks: ManualClock[] = [];
    const fx = await schedulerBus(t, { clock: () => Math.max(...clocks.map((c) => c.now().getTime())) });
    const clockA = new ManualClock('2026-01-01T11:59:05Z');
    clocks.push(clockA);
    const gate = stallingBus(fx.bus, toLedger);
    const a = startScheduler({ ...fx, bus: gate.view, nodeId: 'node-a', clock: clockA, logger: silent });
    t.teardown(() => a.stop());
    await a.plan([aSchedule()]);
    const aFired = clockA.advanceTo('2026-01-01T12:00:00Z');
    await gate.atStall;
    const clockB = new ManualClock('2026-01-01T12:00:40Z');
    clocks.push(clockB);
    const b = fx.start('node-b', clockB);
    await b.plan([aSchedule()]);
    t.equal(b.holding(), true);
    await b.settled();
    const rows = ['hourly alice 12:00 fired', 'hourly bob 12:00 skipped_catchup'];
    t.same(brief(await ledger(fx.bus)), rows, 'node-b completed the firing');
    await clockB.advanceTo('2026-01-01T12:03:00Z');

    gate.release();
    await aFired;
    await a.settled();
    t.same(brief(await ledger(fx.bus)), rows, "node-a's row is not stored again");
    t.equal((await wakes(fx.bus)).length, 1, 'one wake');
    t.match(await claimOf(fx, alice1200), { state: 'done', node: 'node-a' });
  },
);

t.test(
  'a completer paused before its row, resumed more than 2 min after the claimant stored it, stores no second row',
  async (t) => {
    // node-a froze at its wake; node-b takes the duty at 12:00:40 and freezes at the row it completes the
    // claim with; node-a resumes and stores its wake and row; node-b resumes at 12:03.
    const clocks: ManualClock[] = [];
    const fx = await schedulerBus(t, { clock: () => Math.max(...clocks.map((c) => c.now().getTime())) });
    const clockA = new ManualClock('2026-01-01T11:59:05Z');
    clocks.push(clockA);
    const gateA = stallingBus(fx.bus, (subject) => subject.startsWith('svc.agent.'));
    const a = startScheduler({ ...fx, bus: gateA.view, nodeId: 'node-a', clock: clockA, logger: silent });
    t.teardown(() => a.stop());
    await a.plan([aSchedule()]);
    const aFired = clockA.advanceTo('2026-01-01T12:00:00Z');
    await gateA.atStall;
    const clockB = new ManualClock('2026-01-01T12:00:40Z');
    clocks.push(clockB);
    const store = new ManualClock('2026-01-01T12:00:40Z');
    clocks.push(store);
    const gateB = stallingBus(fx.bus, toLedger);
    const b = fx.start('node-b', clockB, { bus: gateB.view });
    const bPlanned = b.plan([aSchedule()]);
    await gateB.atStall;

    gateA.release();
    await aFired;
    await a.settled();
    // Its clock not moved, node-a fires bob too before it sees its lease lost.
    const rows = ['hourly alice 12:00 fired', 'hourly bob 12:00 fired'];
    t.same(brief(await ledger(fx.bus)), rows, 'node-a stored its rows');
    // node-b's own clock stands still: its renewals would wait behind the frozen firing.
    await store.advanceTo('2026-01-01T12:03:00Z');
    gateB.release();
    await bPlanned;
    await b.settled();
    t.same(brief(await ledger(fx.bus)), rows, "node-b's row is not stored again");
    t.same(
      (await wakes(fx.bus)).map((w) => w.handle),
      ['alice', 'bob'],
      'one wake each',
    );
    t.match(await claimOf(fx, alice1200), { state: 'done', node: 'node-a' });
  },
);

async function claimOf(fx: SchedulerBus, key: string): Promise<FiringClaim> {
  const entry = await fx.claims.get(key);
  return FiringClaim.parse(JSON.parse(dec.decode(entry!.value)));
}
