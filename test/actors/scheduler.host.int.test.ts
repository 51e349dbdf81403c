import t, { type Test } from 'tap';

import { acquireDuty, readDuty, renewDuty, SCHEDULER_DUTY, TIMINGS_KEY } from '../../actors/index.js';
import type { Bus, Kv, Subscription } from '../../bus/index.js';
import { Company, resolveSchedules, ScheduleTimings, type EffectiveSchedule } from '../../schema/index.js';
import { aSchedule } from '../fixtures/schedules/schedule.js';
import { scheduledCompany } from '../fixtures/schedules/company.js';
import { ManualClock } from '../harness/manual-clock.js';
import { brief, ledger, schedulerBus, wakes } from './fixtures/scheduler-bus.js';

/** `schedule target time` of every (schedule, fire time, target) recorded more than once. */
const duplicates = (rows: string[]): string[] => {
  const keys = rows.map((r) => r.split(' ').slice(0, 3).join(' '));
  return keys.filter((k, i) => keys.indexOf(k) !== i);
};

t.test('a due firing wakes each runner on its inbox and records one ledger row per runner', async (t) => {
  const { bus, start } = await schedulerBus(t);
  const clock = new ManualClock('2026-01-01T04:10:00Z');
  const host = start('node-a', clock);
  await host.plan([aSchedule({ timeout_seconds: 300 })]);
  t.equal(host.holding(), true);
  await clock.advanceTo('2026-01-01T05:00:00Z');

  t.same(brief(await ledger(bus)), ['hourly alice 05:00 fired', 'hourly bob 05:00 fired']);
  const sent = await wakes(bus);
  t.same(
    sent.map((w) => w.handle),
    ['alice', 'bob'],
  );
  t.match(sent[0], {
    message: { kind: 'schedule', received_at: '2026-01-01T05:00:00.000Z', summary: /hourly/ },
    wake: {
      scope_type: 'unit',
      scope_id: 'Engineering',
      schedule_name: 'hourly',
      task: 'Check in',
      scheduled_at: '2026-01-01T05:00:00.000Z',
      fired_at: '2026-01-01T05:00:00.000Z',
      timeout_seconds: 300,
      deadline: '2026-01-01T05:05:00.000Z',
    },
  });
  t.same(clock.pending().includes('2026-01-01T06:00:00.000Z'), true, 'the next firing is armed');
});

t.test('schedules of the company wake agent seats only, never a human seat', async (t) => {
  const { bus, start } = await schedulerBus(t);
  // Monday 2026-01-05 08:50 in Berlin.
  const clock = new ManualClock('2026-01-05T07:50:00Z');
  const host = start('node-a', clock);
  await host.plan(resolveSchedules(Company.parse(scheduledCompany())));
  await clock.advanceTo('2026-01-05T09:01:00Z');
  const handles = new Set((await wakes(bus)).map((w) => w.handle));
  t.same([...handles].sort(), ['alice', 'bob', 'eve', 'ivy']);
  t.notOk(handles.has('carol') || handles.has('hank'), 'humans get no wake');
  t.same(
    brief(await ledger(bus)).filter((r) => r.startsWith('standup')),
    ['standup eve 08:00 fired', 'standup alice 08:00 fired', 'standup bob 08:00 fired'],
  );
});

t.test('two scheduler hosts on one bus: one holds the duty and each firing happens once', async (t) => {
  const { bus, coord, start } = await schedulerBus(t);
  const clock = new ManualClock('2026-01-01T04:10:00Z');
  const a = start('node-a', clock);
  const b = start('node-b', clock);
  const schedules = [aSchedule(), aSchedule({ name: 'quarter', cron: '*/15 * * * *', runners: ['carl'] })];
  await a.plan(schedules);
  await b.plan(schedules);
  t.same([a.holding(), b.holding()], [true, false]);
  t.match(await readDuty(coord, SCHEDULER_DUTY), { node: 'node-a', epoch: 1 });

  await clock.advanceTo('2026-01-01T05:00:00Z');
  // The holder stops (a drain releases the lease); the other takes over at its next look.
  await a.stop();
  await clock.advanceTo('2026-01-01T06:00:00Z');
  t.same([a.holding(), b.holding()], [false, true]);
  t.match(await readDuty(coord, SCHEDULER_DUTY), { node: 'node-b', epoch: 2 });

  const rows = brief(await ledger(bus));
  t.same(duplicates(rows), [], 'no (schedule, time, target) twice');
  t.same(
    rows.filter((r) => r.startsWith('quarter')).map((r) => r.split(' ')[2]),
    ['04:15', '04:30', '04:45', '05:00', '05:15', '05:30', '05:45', '06:00'],
    'no firing lost across the takeover',
  );
  t.equal(rows.filter((r) => r.startsWith('hourly')).length, 4);
  t.equal((await wakes(bus)).length, rows.length, 'one wake per row');
});

t.test('two hosts that both believe they hold the duty still fire once (claims)', async (t) => {
  const { bus, start } = await schedulerBus(t);
  // A stalls (its clock stands still) long enough for its lease to expire; B takes over.
  const clockA = new ManualClock('2026-01-01T11:59:55Z');
  const clockB = new ManualClock('2026-01-01T11:59:55Z');
  const a = start('node-a', clockA);
  const b = start('node-b', clockB);
  const schedules = [aSchedule({ catchup: true })];
  await a.plan(schedules);
  await b.plan(schedules);
  t.same([a.holding(), b.holding()], [true, false]);

  await clockB.advanceTo('2026-01-01T12:00:26Z');
  t.equal(b.holding(), true, 'B took the expired lease and caught up 12:00');
  // A wakes up still believing it holds the duty: its 12:00 timer fires before its renewal fails.
  t.equal(a.holding(), true);
  await clockA.advanceTo('2026-01-01T12:00:06Z');
  t.equal(a.holding(), false, 'the renewal told A it lost');

  t.same(brief(await ledger(bus)), ['hourly alice 12:00 fired', 'hourly bob 12:00 fired']);
  t.same(
    (await wakes(bus)).map((w) => `${w.handle} ${w.wake.scheduled_at}`),
    ['alice 2026-01-01T12:00:00.000Z', 'bob 2026-01-01T12:00:00.000Z'],
  );
});

/** A node that ran the duty until `downAt`, then came back at `backAt` with the same schedules. */
async function restart(
  t: Test,
  schedules: EffectiveSchedule[],
  downAt: string,
  backAt: string,
  fresh = false,
) {
  const { bus, start } = await schedulerBus(t);
  if (!fresh) {
    const first = new ManualClock(new Date(new Date(downAt).getTime() - 60_000));
    const before = start('node-a', first);
    await before.plan(schedules);
    await first.advanceTo(downAt);
    await before.stop();
  }
  const second = new ManualClock(backAt);
  const after = start('node-a', second);
  await after.plan(schedules);
  return { bus, after, clock: second };
}

const catchupPair = [
  aSchedule({ name: 'sweep', catchup: true, runners: ['alice'] }),
  aSchedule({ name: 'plain', catchup: false, runners: ['alice'] }),
];

t.test(
  'on start, the most recent missed firing inside its window is fired with catchup, else skipped',
  async (t) => {
    // Down from 01:30 to 05:20: 02:00..05:00 were missed; only 05:00 counts, 20 min late (window 30 min).
    const { bus, after, clock } = await restart(
      t,
      catchupPair,
      '2026-01-01T01:30:00Z',
      '2026-01-01T05:20:00Z',
    );
    t.equal(after.holding(), true);
    t.same(brief(await ledger(bus)), ['sweep alice 05:00 fired', 'plain alice 05:00 skipped_catchup']);
    const sent = await wakes(bus);
    t.same(
      sent.map((w) => [w.wake.schedule_name, w.wake.scheduled_at, w.wake.fired_at]),
      [['sweep', '2026-01-01T05:00:00.000Z', '2026-01-01T05:20:00.000Z']],
      'the catchup wake says when it was due and when it fired',
    );
    await clock.advanceTo('2026-01-01T06:00:00Z');
    t.same(brief(await ledger(bus)).slice(2), ['sweep alice 06:00 fired', 'plain alice 06:00 fired']);
  },
);

t.test('a missed firing outside its window is skipped even with catchup', async (t) => {
  // 05:00 is 40 minutes old at 05:40: past half the hourly period.
  const { bus } = await restart(t, catchupPair, '2026-01-01T01:30:00Z', '2026-01-01T05:40:00Z');
  t.same(brief(await ledger(bus)), [
    'sweep alice 05:00 skipped_catchup',
    'plain alice 05:00 skipped_catchup',
  ]);
  t.same(await wakes(bus), []);
});

t.test('a restart inside one period misses nothing, and a fleet that never ran owes nothing', async (t) => {
  const quick = await restart(t, catchupPair, '2026-01-01T05:10:00Z', '2026-01-01T05:20:00Z');
  t.same(await ledger(quick.bus), []);
  const fresh = await restart(t, catchupPair, '2026-01-01T05:10:00Z', '2026-01-01T05:20:00Z', true);
  t.same(await ledger(fresh.bus), []);
});

/** `name planned_from` of every recorded schedule timing. */
async function timings(coord: Kv): Promise<string[]> {
  const entry = await coord.get(TIMINGS_KEY);
  if (entry === null) return [];
  const recorded = ScheduleTimings.parse(JSON.parse(new TextDecoder().decode(entry.value)));
  return Object.entries(recorded.schedules).map(
    ([key, v]) => `${(JSON.parse(key) as string[])[2]} ${v.planned_from}`,
  );
}

/** The bus as a process sees it: what it answers on the bus ends when it is killed. */
function answersUntilKilled(bus: Bus): { bus: Bus; kill: () => Promise<void> } {
  const answering: Subscription[] = [];
  const seen = new Proxy(bus, {
    get(target, prop) {
      const real = Reflect.get(target, prop) as unknown;
      if (typeof real !== 'function') return real;
      if (prop !== 'reply') return (real as (...a: unknown[]) => unknown).bind(target);
      return (...args: Parameters<Bus['reply']>) => {
        const sub = target.reply(...args);
        answering.push(sub);
        return sub;
      };
    },
  });
  return { bus: seen, kill: async () => void (await Promise.all(answering.map((sub) => sub.stop()))) };
}

const everyMinuteAt30 = (name: string, catchup: boolean): EffectiveSchedule =>
  aSchedule({ name, cron: '30 * * * * *', catchup, runners: ['ada'] });

t.test(
  'a schedule written just after its fire time, then a crash before the next renewal: the restart owes nothing from before it was written',
  async (t) => {
    for (const catchup of [true, false]) {
      const { bus, coord, start } = await schedulerBus(t);
      // The holder renews at 28.08, the schedule is written at 30.42, the process is killed before 38.08.
      const first = new ManualClock('2026-01-01T17:24:18.080Z');
      const killable = answersUntilKilled(bus);
      const before = start('node-a', first, { bus: killable.bus });
      await before.plan([]);
      await first.advanceTo('2026-01-01T17:24:30.420Z');
      t.match(await readDuty(coord, SCHEDULER_DUTY), { renewed_at: '2026-01-01T17:24:28.080Z' });
      await before.plan([everyMinuteAt30('late', catchup)]);
      t.same(
        await timings(coord),
        ['late 2026-01-01T17:24:30.420Z'],
        'recorded before the holder fires by it',
      );

      // Killed: its clock stands still, and its liveness answer is gone with the process.
      await killable.kill();
      const second = new ManualClock('2026-01-01T17:24:31.500Z');
      const after = start('node-a', second);
      await after.plan([everyMinuteAt30('late', catchup)]);
      t.equal(after.holding(), true, 'the restart takes the duty of its gone process at once');
      t.same(await ledger(bus), [], `catchup ${catchup}: no row for 17:24:30, before the schedule existed`);
      await second.advanceTo('2026-01-01T17:25:30Z');
      t.same(brief(await ledger(bus)), ['late ada 17:25 fired'], 'its first fire time after the writing');
    }
  },
);

t.test(
  'a takeover still catches up an unchanged schedule, but owes one written while nobody held the duty only from its writing',
  async (t) => {
    const { bus, coord, start } = await schedulerBus(t);
    // A holds the duty from 17:24:00, last renews at 17:24:20 and dies; B stands by.
    const clockA = new ManualClock('2026-01-01T17:24:00Z');
    const clockB = new ManualClock('2026-01-01T17:24:00Z');
    const a = start('node-a', clockA);
    const b = start('node-b', clockB);
    const steady = everyMinuteAt30('steady', true);
    await a.plan([]); // the fleet's first apply: timings kept from here on
    await a.plan([steady]);
    await b.plan([steady]);
    await clockA.advanceTo('2026-01-01T17:24:25Z');
    t.same([a.holding(), b.holding()], [true, false]);
    // A revision adds `late` at 30.42; only B applies it (A is dead). `steady` is unchanged in it.
    await clockB.advanceTo('2026-01-01T17:24:30.420Z');
    await b.plan([steady, everyMinuteAt30('late', true)]);
    t.same((await timings(coord)).sort(), [
      'late 2026-01-01T17:24:30.420Z',
      'steady 2026-01-01T17:24:00.000Z',
    ]);
    // A's lease expires at 17:24:50; B takes over, owing from A's last renewal.
    await clockB.advanceTo('2026-01-01T17:24:51Z');
    t.equal(b.holding(), true);
    t.same(brief(await ledger(bus)), ['steady ada 17:24 fired'], 'the missed 17:24:30 of steady only');
    t.same(
      (await wakes(bus)).map((w) => `${w.wake.schedule_name} ${w.wake.scheduled_at}`),
      ['steady 2026-01-01T17:24:30.000Z'],
    );
  },
);

t.test('a failed wake is recorded with outcome failed', async (t) => {
  const { bus, start } = await schedulerBus(t, { inbox: false });
  const clock = new ManualClock('2026-01-01T04:10:00Z');
  const host = start('node-a', clock);
  await host.plan([aSchedule({ runners: ['alice'] })]);
  await clock.advanceTo('2026-01-01T05:00:00Z');
  t.same(brief(await ledger(bus)), ['hourly alice 05:00 failed']);
});

t.test(
  'a config apply re-plans: a changed cron fires at its new time, a removed schedule stops',
  async (t) => {
    const { bus, start } = await schedulerBus(t);
    const clock = new ManualClock('2026-01-05T07:50:00Z');
    const host = start('node-a', clock);
    const applier = host.applier();
    t.equal(applier.name, 'org');
    const doc = Company.parse(scheduledCompany());
    await applier.apply(doc, null);
    t.equal(host.schedules().length, 8);

    const next = scheduledCompany();
    const engineering = (next['units'] as Array<Record<string, unknown>>)[0]!;
    engineering['schedules'] = [{ name: 'standup', cron: '30 9 * * 1-5', task: 'Later standup' }];
    (next['roles'] as Array<Record<string, unknown>>)[0]!['schedules'] = [];
    const parsedNext = Company.parse(next);
    await applier.apply(parsedNext, doc);
    await clock.advanceTo('2026-01-05T08:45:00Z');
    const rows = brief(await ledger(bus));
    t.same(
      rows.filter((r) => r.startsWith('standup')),
      ['standup eve 08:30 fired', 'standup alice 08:30 fired', 'standup bob 08:30 fired'],
    );
    t.same(
      rows.filter((r) => r.startsWith('inbox-sweep')),
      [],
      'the removed schedule never fired',
    );
    t.equal((await wakes(bus)).find((w) => w.wake.schedule_name === 'standup')?.wake.task, 'Later standup');

    // A rollback of a later subsystem restores the previous schedules.
    await applier.rollback?.(doc, parsedNext);
    t.equal(host.schedules().length, 8);
  },
);

t.test('the duty lease: racing candidates get one winner, a lost lease cannot be renewed', async (t) => {
  const { coord } = await schedulerBus(t);
  const now = new Date('2026-01-01T00:00:00Z');
  const results = await Promise.all(
    ['a', 'b', 'c'].map((id) =>
      acquireDuty(coord, { duty: 'race', node: `node-${id}`, instance: id }, now, 30_000),
    ),
  );
  t.equal(results.filter((r) => r.won).length, 1);
  const winner = results.find((r) => r.won);
  if (!winner?.won) throw new Error('no winner');
  // After expiry another node takes over with the next epoch; the old holder's renewal then fails.
  const later = new Date('2026-01-01T00:00:31Z');
  const takeover = await acquireDuty(coord, { duty: 'race', node: 'node-z', instance: 'z' }, later, 30_000);
  t.match(takeover, { won: true, held: { lease: { epoch: 2, node: 'node-z' } }, since: now });
  t.equal(await renewDuty(coord, winner.held, later, 30_000), null);
});
