/**
 * The stream's `schedules` section stays true between firings (ops/schedules.md "Ledger and /schedules"): it
 * is pushed again when the earliest `next_run` it holds passes, so a schedule that fires nothing (its only
 * target a human lead: no runner) does not show a next firing in the past while `GET /schedules` moved on.
 * Real scheduler host and ledger read model on a memory bus; time is a manual clock.
 */
import { pino } from 'pino';
import t from 'tap';
import { ensureCatalogue, openBus } from '../../bus/index.js';
import { Company, type SchedulesAnswer } from '../../schema/index.js';
import { startSchedules } from '../../scripts/schedules-wiring.js';
import { ManualClock } from '../harness/manual-clock.js';

const silent = pino({ level: 'silent' });

/** One unit whose schedules all target its lead, a human: they have no runner, so nothing fires. */
const company = (schedules: Array<{ name: string; cron: string }>): Company =>
  Company.parse({
    name: 'Acme',
    timezone: 'UTC',
    units: [
      {
        name: 'Desk',
        type: 'team',
        lead: 'Hank',
        schedules: schedules.map((s) => ({ ...s, task: 'Look', target: 'lead' })),
        roles: [{ name: 'Hank', kind: 'human', contact: { chat_user_id: 'U2' } }],
      },
    ],
  });

const nextRuns = (frame: SchedulesAnswer | undefined): Record<string, string> =>
  Object.fromEntries((frame?.schedules ?? []).map((s) => [s.name, s.next_run]));

t.test(
  'the schedules section is pushed again when its earliest next_run passes, though nothing fired',
  async (t) => {
    const bus = await openBus({ type: 'memory' });
    t.teardown(() => bus.close());
    const { coord } = await ensureCatalogue(bus);
    const clock = new ManualClock('2026-01-01T04:10:00Z');
    const schedules = await startSchedules({ bus, coord, nodeId: 'node-a', logger: silent, clock });
    let stopped = false;
    t.teardown(() => (stopped ? undefined : schedules.stop()));
    const frames: SchedulesAnswer[] = [];
    schedules.section.subscribe((data, mode) => {
      t.equal(mode, 'replace', 'the section is pushed whole');
      frames.push(data as SchedulesAnswer);
    });

    await schedules.applier.apply(company([{ name: 'hourly', cron: '0 * * * *' }]), null);
    t.same(nextRuns(frames.at(-1)), { hourly: '2026-01-01T05:00:00.000Z' }, 'the apply pushes the section');
    t.same(frames.at(-1)?.schedules[0]?.runners, [], 'the schedule has no runner to wake');

    const before = frames.length;
    await clock.advanceTo('2026-01-01T05:00:00Z');
    t.equal(frames.length, before + 1, 'one push when the next firing passed');
    t.same(nextRuns(frames.at(-1)), { hourly: '2026-01-01T06:00:00.000Z' }, 'its next_run is ahead again');
    t.same(frames.at(-1)?.recent_runs, [], 'nothing fired: no ledger row pushed it');
    t.same(frames.at(-1), schedules.answer(), 'the section reads as GET /schedules does');

    // An apply re-arms for the earliest next_run it now holds, not the one armed before.
    await schedules.applier.apply(
      company([
        { name: 'hourly', cron: '0 * * * *' },
        { name: 'quarter', cron: '*/15 * * * *' },
      ]),
      null,
    );
    const applied = frames.length;
    await clock.advanceTo('2026-01-01T05:14:59Z');
    t.equal(frames.length, applied, 'no push before the earliest next_run');
    await clock.advanceTo('2026-01-01T05:15:00Z');
    t.same(
      nextRuns(frames.at(-1)),
      { hourly: '2026-01-01T06:00:00.000Z', quarter: '2026-01-01T05:30:00.000Z' },
      'pushed when the earlier of the two passed',
    );
    t.equal(frames.length, applied + 1);

    t.ok(clock.pending().includes('2026-01-01T05:30:00.000Z'), 'the next pass is armed while the node runs');
    await schedules.stop();
    stopped = true;
    t.notOk(
      clock.pending().includes('2026-01-01T05:30:00.000Z'),
      'the stopped node leaves no timer for the section',
    );
  },
);
