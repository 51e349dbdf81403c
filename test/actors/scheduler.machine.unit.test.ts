import t from 'tap';
import { initialTransition, transition, type SnapshotFrom } from 'xstate';
import { schedulerMachine, type Firing, type SchedulerEvent } from '../../actors/index.js';
import type { EffectiveSchedule } from '../../schema/index.js';
import { aSchedule } from '../fixtures/schedules/schedule.js';

type Snapshot = SnapshotFrom<typeof schedulerMachine>;

interface Step {
  snapshot: Snapshot;
  firings: Firing[];
  /** The last `arm` the transition asked for; undefined when it asked none. */
  arm: string | null | undefined;
}

/** given events, when one more, then the state, the firings and the timer asked for. */
function given(...events: SchedulerEvent[]): { when(event: SchedulerEvent): Step; snapshot: Snapshot } {
  let [snapshot] = initialTransition(schedulerMachine);
  for (const event of events) [snapshot] = transition(schedulerMachine, snapshot, event);
  return {
    snapshot,
    when(event) {
      const [next, actions] = transition(schedulerMachine, snapshot, event);
      const firings: Firing[] = [];
      let arm: string | null | undefined;
      for (const action of actions) {
        const params = action.params as { firings?: Firing[]; at?: string | null } | undefined;
        if (action.type === 'fire') firings.push(...(params?.firings ?? []));
        if (action.type === 'arm') arm = params?.at ?? null;
      }
      return { snapshot: next, firings, arm };
    },
  };
}

const planned = (
  schedules: EffectiveSchedule[],
  at = '2026-01-01T04:10:00.000Z',
  planned_from?: Record<string, string | null>,
): SchedulerEvent => ({
  type: 'scheduler.planned',
  schedules,
  at,
  ...(planned_from !== undefined ? { planned_from } : {}),
});
const acquired = (at: string, since: string | null = null): SchedulerEvent => ({
  type: 'scheduler.duty.acquired',
  at,
  since,
});
const tick = (at: string): SchedulerEvent => ({ type: 'scheduler.tick', at });
const rows = (firings: Firing[]) =>
  firings.map((f) => [f.schedule.name, f.target_handle, f.scheduled_at, f.outcome]);

t.test('in standby the schedules are kept but nothing fires and no timer is armed', async (t) => {
  const step = given().when(planned([aSchedule()]));
  t.equal(step.snapshot.value, 'standby');
  t.equal(step.snapshot.context.schedules.length, 1);
  t.same(step.firings, []);
  t.equal(step.arm, undefined);
  t.same(given(planned([aSchedule()])).when(tick('2026-01-01T05:00:00.000Z')).firings, []);
});

t.test('taking the duty with no history fires nothing and arms the next fire time', async (t) => {
  const step = given(planned([aSchedule()])).when(acquired('2026-01-01T04:10:00.000Z'));
  t.equal(step.snapshot.value, 'holding');
  t.same(step.firings, []);
  t.equal(step.arm, '2026-01-01T05:00:00.000Z');
});

t.test('a due tick fires once per runner and arms the following fire time', async (t) => {
  const step = given(planned([aSchedule()]), acquired('2026-01-01T04:10:00.000Z')).when(
    tick('2026-01-01T05:00:00.000Z'),
  );
  t.same(rows(step.firings), [
    ['hourly', 'alice', '2026-01-01T05:00:00.000Z', 'fired'],
    ['hourly', 'bob', '2026-01-01T05:00:00.000Z', 'fired'],
  ]);
  t.equal(step.arm, '2026-01-01T06:00:00.000Z');
});

t.test('an early tick fires nothing and keeps the timer', async (t) => {
  const step = given(planned([aSchedule()]), acquired('2026-01-01T04:10:00.000Z')).when(
    tick('2026-01-01T04:59:59.999Z'),
  );
  t.same(step.firings, []);
  t.equal(step.arm, '2026-01-01T05:00:00.000Z');
});

t.test('a late tick fires the latest passed fire time once, not every one it missed', async (t) => {
  const step = given(planned([aSchedule()]), acquired('2026-01-01T04:10:00.000Z')).when(
    tick('2026-01-01T07:20:00.000Z'),
  );
  t.same(
    rows(step.firings).map((r) => r[2]),
    ['2026-01-01T07:00:00.000Z', '2026-01-01T07:00:00.000Z'],
  );
  t.equal(step.arm, '2026-01-01T08:00:00.000Z');
});

t.test(
  'on taking the duty, a missed firing inside its window is fired when the schedule catches up',
  async (t) => {
    const step = given(planned([aSchedule({ catchup: true })])).when(
      acquired('2026-01-01T05:20:00.000Z', '2026-01-01T04:30:00.000Z'),
    );
    t.same(rows(step.firings), [
      ['hourly', 'alice', '2026-01-01T05:00:00.000Z', 'fired'],
      ['hourly', 'bob', '2026-01-01T05:00:00.000Z', 'fired'],
    ]);
    t.equal(step.arm, '2026-01-01T06:00:00.000Z');
  },
);

t.test('only the most recent missed firing counts; outside its window it is skipped', async (t) => {
  // Down from 01:30 to 05:40: 02:00..05:00 were missed; 05:00 is 40 min old, past half an hour.
  const step = given(planned([aSchedule({ catchup: true })])).when(
    acquired('2026-01-01T05:40:00.000Z', '2026-01-01T01:30:00.000Z'),
  );
  t.same(rows(step.firings), [
    ['hourly', 'alice', '2026-01-01T05:00:00.000Z', 'skipped_catchup'],
    ['hourly', 'bob', '2026-01-01T05:00:00.000Z', 'skipped_catchup'],
  ]);
});

t.test('a missed firing of a schedule without catchup is skipped, even inside the window', async (t) => {
  const step = given(planned([aSchedule({ catchup: false })])).when(
    acquired('2026-01-01T05:01:00.000Z', '2026-01-01T04:30:00.000Z'),
  );
  t.same(
    rows(step.firings).map((r) => r[3]),
    ['skipped_catchup', 'skipped_catchup'],
  );
});

t.test('a firing that falls exactly on the moment the duty is taken fires on time', async (t) => {
  const step = given(planned([aSchedule({ catchup: false })])).when(
    acquired('2026-01-01T05:00:00.000Z', '2026-01-01T04:59:50.000Z'),
  );
  t.same(
    rows(step.firings).map((r) => r[3]),
    ['fired', 'fired'],
  );
  t.equal(step.arm, '2026-01-01T06:00:00.000Z');
});

t.test(
  'a schedule written after the previous holder last renewed owes nothing from before it was written',
  async (t) => {
    // Written at 30.42, just after its 30.000 firing; the holder last renewed at 28.08 and died.
    const every = '30 * * * * *';
    const late = aSchedule({ name: 'late', cron: every, catchup: true, runners: ['ada'] });
    const plain = aSchedule({ name: 'plain', cron: every, catchup: false, runners: ['ada'] });
    const steady = aSchedule({ name: 'steady', cron: every, catchup: true, runners: ['ada'] });
    const step = given(
      planned([late, plain, steady], '2026-01-01T17:24:31.500Z', {
        '["unit","Engineering","late"]': '2026-01-01T17:24:30.420Z',
        '["unit","Engineering","plain"]': '2026-01-01T17:24:30.420Z',
        '["unit","Engineering","steady"]': '2026-01-01T16:00:00.000Z',
      }),
    ).when(acquired('2026-01-01T17:24:31.500Z', '2026-01-01T17:24:28.080Z'));
    t.same(
      rows(step.firings),
      [['steady', 'ada', '2026-01-01T17:24:30.000Z', 'fired']],
      'only the schedule planned long before catches up its missed 30.000; no fired nor skipped row for the others',
    );
    t.equal(step.arm, '2026-01-01T17:25:30.000Z');
  },
);

t.test(
  'a schedule re-timed after the previous holder last renewed owes only from its re-timing',
  async (t) => {
    // Re-timed to :45 at 04:50 while the holder had last renewed at 04:30; the duty is taken at 05:50.
    const retimed = aSchedule({ cron: '45 * * * *', catchup: true, runners: ['ada'] });
    const from = (at: string | null) => ({ '["unit","Engineering","hourly"]': at });
    const after = given(planned([retimed], '2026-01-01T04:50:00.000Z', from('2026-01-01T04:50:00.000Z')));
    t.same(
      rows(after.when(acquired('2026-01-01T05:50:00.000Z', '2026-01-01T04:30:00.000Z')).firings),
      [['hourly', 'ada', '2026-01-01T05:45:00.000Z', 'fired']],
      'its fire times after the re-timing are owed',
    );
    const before = given(planned([retimed], '2026-01-01T04:50:00.000Z', from('2026-01-01T04:50:00.000Z')));
    t.same(
      before.when(acquired('2026-01-01T04:55:00.000Z', '2026-01-01T04:30:00.000Z')).firings,
      [],
      '04:45 came before the re-timing: not owed',
    );
    const unknown = given(planned([retimed], '2026-01-01T04:50:00.000Z', from(null)));
    t.same(
      rows(unknown.when(acquired('2026-01-01T04:55:00.000Z', '2026-01-01T04:30:00.000Z')).firings).map(
        (r) => r[3],
      ),
      ['fired'],
      'planned before timings were kept: owed from the last renewal, as before',
    );
  },
);

t.test('disabled, unschedulable and runner-less schedules never fire nor arm', async (t) => {
  const idle = [
    aSchedule({ name: 'off', enabled: false, catchup: true }),
    aSchedule({ name: 'broken', problem: 'unknown timezone', catchup: true }),
    aSchedule({ name: 'nobody', runners: [], catchup: true }),
  ];
  const step = given(planned(idle)).when(acquired('2026-01-01T05:10:00.000Z', '2026-01-01T04:30:00.000Z'));
  t.same(step.firings, []);
  t.equal(step.arm, null);
});

t.test(
  'a re-plan while holding starts new schedules from now and keeps pending unchanged ones',
  async (t) => {
    const holding = given(planned([aSchedule()]), acquired('2026-01-01T04:10:00.000Z'));
    const next = [aSchedule(), aSchedule({ name: 'quarter', cron: '*/15 * * * *' })];
    const step = holding.when(planned(next, '2026-01-01T04:50:00.000Z'));
    t.same(step.snapshot.context.due, {
      '["unit","Engineering","hourly"]': '2026-01-01T05:00:00.000Z',
      '["unit","Engineering","quarter"]': '2026-01-01T05:00:00.000Z',
    });
    t.same(step.firings, [], 'a re-plan never fires by itself');
    t.equal(step.arm, '2026-01-01T05:00:00.000Z');
  },
);

t.test('a re-plan that changes the cron or disables a schedule re-times or drops it', async (t) => {
  const holding = given(planned([aSchedule()]), acquired('2026-01-01T04:10:00.000Z'));
  const retimed = holding.when(planned([aSchedule({ cron: '30 * * * *' })], '2026-01-01T04:20:00.000Z'));
  t.same(Object.values(retimed.snapshot.context.due), ['2026-01-01T04:30:00.000Z']);
  const dropped = holding.when(planned([aSchedule({ enabled: false })], '2026-01-01T04:20:00.000Z'));
  t.same(dropped.snapshot.context.due, {});
  t.equal(dropped.arm, null);
});

t.test('a re-plan changes who runs the next firing', async (t) => {
  const holding = given(
    planned([aSchedule()]),
    acquired('2026-01-01T04:10:00.000Z'),
    planned([aSchedule({ runners: ['carol'] })]),
  );
  t.same(
    rows(holding.when(tick('2026-01-01T05:00:00.000Z')).firings).map((r) => r[1]),
    ['carol'],
  );
});

t.test('losing the duty disarms the timer and later ticks fire nothing', async (t) => {
  const holding = given(planned([aSchedule()]), acquired('2026-01-01T04:10:00.000Z'));
  const lost = holding.when({ type: 'scheduler.duty.lost' });
  t.equal(lost.snapshot.value, 'standby');
  t.equal(lost.arm, null);
  const after = given(planned([aSchedule()]), acquired('2026-01-01T04:10:00.000Z'), {
    type: 'scheduler.duty.lost',
  });
  t.same(after.when(tick('2026-01-01T05:00:00.000Z')).firings, []);
});

t.test('across the autumn DST overlap a daily 01:30 fires once, even for a late tick', async (t) => {
  const daily = aSchedule({ cron: '30 1 * * *', timezone: 'America/New_York' });
  const holding = given(planned([daily]), acquired('2026-10-31T12:00:00.000Z'));
  t.same(
    Object.values(holding.snapshot.context.due),
    ['2026-11-01T05:30:00.000Z'],
    '01:30 EDT, the first occurrence',
  );
  // The tick comes after the repeated 01:30 EST (06:30Z): still one firing, named 01:30 EDT.
  const late = holding.when(tick('2026-11-01T06:45:00.000Z'));
  t.same(
    rows(late.firings).map((r) => r[2]),
    ['2026-11-01T05:30:00.000Z', '2026-11-01T05:30:00.000Z'],
  );
  t.equal(late.arm, '2026-11-02T06:30:00.000Z');
});
