/**
 * A schedule's `cron` or `timezone` (or the company `timezone`) written as a `${VAR}` the secret store
 * answers: the value drives firing, but answers, problems and stored timings carry the written text only
 * (spec: secrets never appear in read answers, error messages or records; only `${VAR}` names).
 */
import t from 'tap';
import { retime } from '../../actors/scheduler/scheduler.plan.js';
import {
  Company,
  resolveSchedules,
  ScheduleTimings,
  scheduleView,
  type EffectiveSchedule,
} from '../../schema/index.js';
import { scheduledCompany } from '../fixtures/schedules/company.js';

const CANARY = 'SECRET-CANARY-7f3a';

const byName = (list: EffectiveSchedule[], name: string): EffectiveSchedule => {
  const found = list.find((s) => s.name === name);
  if (!found) throw new Error(`no schedule ${name}`);
  return found;
};

/** The fixture company with the standup's cron, its timezone and the company timezone written as references. */
function referencing(): Company {
  const doc = scheduledCompany();
  doc['timezone'] = '${COMPANY_TZ}';
  const units = doc['units'] as Array<{ schedules: Array<Record<string, unknown>> }>;
  units[0]!.schedules[0]!['cron'] = '${STANDUP_CRON}';
  units[0]!.schedules[1]!['timezone'] = '${REVIEW_TZ}';
  return Company.parse(doc);
}

const store =
  (values: Record<string, string>) =>
  (name: string): string | undefined =>
    values[name];

t.test('a cron or timezone the secret store answers reads as written, and fires by its value', async (t) => {
  // Distinct values, each findable in a leak: 13 past 7, Chatham and Kathmandu.
  const resolve = store({
    STANDUP_CRON: '13 7 * * *',
    COMPANY_TZ: 'Pacific/Chatham',
    REVIEW_TZ: 'Asia/Kathmandu',
  });
  const list = resolveSchedules(referencing(), { resolve });
  const standup = byName(list, 'standup');
  const review = byName(list, 'weekly-review');
  t.equal(standup.cron, '${STANDUP_CRON}');
  t.equal(standup.timezone, '${COMPANY_TZ}');
  t.equal(review.timezone, '${REVIEW_TZ}');
  t.equal(standup.problem, null);
  const now = new Date('2026-01-05T12:00:00Z');
  const view = scheduleView(standup, now);
  // 07:13 in Chatham (+13:45 in January) is 17:28Z the day before.
  t.equal(view.next_run, '2026-01-05T17:28:00.000Z', 'fires by the resolved cron in the resolved zone');
  const shown = JSON.stringify(list.map((s) => scheduleView(s, now)));
  t.notMatch(shown, /13 7|Chatham|Kathmandu/, 'no resolved value in the read answer');
});

t.test(
  'a reference from the environment shows its value (spec: the timezone is shown resolved)',
  async (t) => {
    const resolve = store({
      STANDUP_CRON: '13 7 * * *',
      COMPANY_TZ: 'pacific/chatham',
      REVIEW_TZ: 'Asia/Kathmandu',
    });
    const list = resolveSchedules(referencing(), { resolve, secret: () => false });
    t.equal(byName(list, 'standup').cron, '13 7 * * *');
    t.equal(byName(list, 'standup').timezone, 'Pacific/Chatham');
    t.equal(byName(list, 'weekly-review').timezone, 'Asia/Kathmandu');
  },
);

t.test('a problem of a secret cron or timezone names the reference, never the value', async (t) => {
  for (const [cron, tz] of [
    [CANARY, 'UTC'],
    [`0 0 31 2 * ${CANARY}`, 'UTC'],
    ['0 0 31 2 *', 'UTC'],
    ['61 * * * *', 'UTC'],
    ['13 7 * * *', CANARY],
  ] as const) {
    const resolve = store({ STANDUP_CRON: cron, COMPANY_TZ: tz, REVIEW_TZ: 'UTC' });
    const standup = byName(resolveSchedules(referencing(), { resolve }), 'standup');
    t.type(standup.problem, 'string', `${cron} in ${tz} cannot be scheduled`);
    t.notMatch(standup.problem, new RegExp(`${CANARY}|0 0 31|61 \\*|13 7`), 'the value is not quoted');
    t.match(
      standup.problem,
      tz === CANARY ? /\$\{COMPANY_TZ\}/ : /\$\{STANDUP_CRON\}/,
      'the reference is named',
    );
  }
});

t.test('recorded timings hold no resolved secret, yet notice when its value changes', async (t) => {
  const at = new Date('2026-01-05T12:00:00Z');
  const later = new Date('2026-01-06T12:00:00Z');
  const plan = (cron: string): EffectiveSchedule[] =>
    resolveSchedules(referencing(), {
      resolve: store({ STANDUP_CRON: cron, COMPANY_TZ: 'Pacific/Chatham' }),
    });
  const first = retime({ schedules: {} }, plan('13 7 * * *'), at);
  const stored = JSON.stringify(first);
  t.notMatch(stored, /13 7|Chatham/, 'no resolved value in the record');
  t.ok(ScheduleTimings.safeParse(JSON.parse(stored)).success, 'the record parses');
  const key = Object.keys(first.schedules).find((k) => k.includes('standup'))!;
  const same = retime(ScheduleTimings.parse(JSON.parse(stored)), plan('13 7 * * *'), later);
  t.equal(same.schedules[key]!.planned_from, at.toISOString(), 'the same value keeps its planned-from');
  const changed = retime(ScheduleTimings.parse(JSON.parse(stored)), plan('14 7 * * *'), later);
  t.equal(changed.schedules[key]!.planned_from, later.toISOString(), 'a changed value is planned anew');
});

t.test(
  'timings recorded before, holding the resolved text, still parse and keep their planned-from',
  async (t) => {
    const at = new Date('2026-01-05T12:00:00Z');
    const later = new Date('2026-01-06T12:00:00Z');
    const resolve = store({ STANDUP_CRON: '13 7 * * *', COMPANY_TZ: 'Pacific/Chatham' });
    const list = resolveSchedules(referencing(), { resolve });
    const key = JSON.stringify(['unit', 'Engineering', 'standup']);
    const old = ScheduleTimings.parse({
      schedules: {
        [key]: { cron: '13 7 * * *', timezone: 'Pacific/Chatham', planned_from: at.toISOString() },
      },
    });
    const next = retime(old, list, later);
    t.equal(next.schedules[key]!.planned_from, at.toISOString(), 'the same timing, not re-timed');
    t.notMatch(JSON.stringify(next), /13 7|Chatham/, 'rewritten without the value');
  },
);
