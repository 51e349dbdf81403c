import t from 'tap';
import {
  Company,
  companyTimezone,
  DEFAULT_SCHEDULE_TIMEOUT_SECONDS,
  resolveSchedules,
  scheduledDeadline,
  scheduleView,
  validateCompany,
  ValidationMode,
  type EffectiveSchedule,
} from '../../schema/index.js';
import { scheduledCompany } from '../fixtures/schedules/company.js';

const byName = (list: EffectiveSchedule[], name: string): EffectiveSchedule => {
  const found = list.find((s) => s.name === name);
  if (!found) throw new Error(`no schedule ${name}`);
  return found;
};

t.test('the fixture company is a valid document', async (t) => {
  const result = validateCompany(scheduledCompany(), { mode: ValidationMode.Write });
  t.same(result.problems, []);
  t.equal(result.valid, true);
});

t.test('seat schedules are scoped to the seat handle and unit schedules to the unit name', async (t) => {
  const list = resolveSchedules(Company.parse(scheduledCompany()));
  t.same(
    list.map((s) => `${s.scope_type}:${s.scope_id}:${s.name}`),
    [
      'role:eve:inbox-sweep',
      'role:root-agent:tell-lead',
      'role:alice:report',
      'unit:Engineering:standup',
      'unit:Engineering:weekly-review',
      'unit:Platform:oncall',
      'unit:Support:triage',
      'unit:Support:queue',
    ],
  );
});

t.test(
  'the company timezone is the default; a schedule timezone overrides it; UTC without either',
  async (t) => {
    const list = resolveSchedules(Company.parse(scheduledCompany()));
    t.equal(byName(list, 'standup').timezone, 'Europe/Berlin');
    t.equal(byName(list, 'weekly-review').timezone, 'America/New_York');
    const { timezone: _tz, ...doc } = scheduledCompany();
    t.equal(byName(resolveSchedules(Company.parse(doc)), 'standup').timezone, 'UTC');
  },
);

t.test('each fans out to the agent members placed in the unit only: no humans, no child units', async (t) => {
  const list = resolveSchedules(Company.parse(scheduledCompany()));
  // Eve is a root seat placed in Engineering by `unit`; Carol is human; Dave sits in the child unit.
  t.same(byName(list, 'standup').runners, ['eve', 'alice', 'bob']);
  t.same(byName(list, 'queue').runners, ['ivy'], 'Hank is human');
  t.same(byName(list, 'inbox-sweep').runners, ['eve'], 'each on a seat is the seat itself');
});

t.test('lead runs on the effective lead when it is an agent, inherited by child units', async (t) => {
  const list = resolveSchedules(Company.parse(scheduledCompany()));
  t.same(byName(list, 'weekly-review').runners, ['alice']);
  t.same(byName(list, 'oncall').runners, ['alice'], 'Platform inherits Alice from Engineering');
  t.same(byName(list, 'report').runners, ['alice'], "a seat's lead target is its unit's lead (here itself)");
  t.same(byName(list, 'triage').runners, [], 'a human lead never runs a schedule');
  t.same(byName(list, 'tell-lead').runners, [], 'a seat placed nowhere has no lead');
});

t.test('defaults: target each, enabled, no catchup, an hour to run', async (t) => {
  const standup = byName(resolveSchedules(Company.parse(scheduledCompany())), 'standup');
  t.match(standup, { target: 'each', enabled: true, catchup: false, timeout_seconds: 600, problem: null });
  t.equal(
    byName(resolveSchedules(Company.parse(scheduledCompany())), 'queue').timeout_seconds,
    DEFAULT_SCHEDULE_TIMEOUT_SECONDS,
    'a schedule without timeout_seconds answers the default, always an integer',
  );
  t.equal(DEFAULT_SCHEDULE_TIMEOUT_SECONDS, 3600);
});

t.test('next_run is the next firing in the effective timezone, empty when disabled', async (t) => {
  const list = resolveSchedules(Company.parse(scheduledCompany()));
  const now = new Date('2026-01-05T07:30:00Z'); // a Monday, 08:30 in Berlin
  t.equal(scheduleView(byName(list, 'standup'), now).next_run, '2026-01-05T08:00:00.000Z');
  t.equal(scheduleView(byName(list, 'weekly-review'), now).next_run, '2026-01-09T21:00:00.000Z');
  t.equal(scheduleView(byName(list, 'triage'), now).next_run, '');
  t.notOk('problem' in scheduleView(byName(list, 'standup'), now), 'the view carries the spec fields only');
});

t.test('references in cron and timezone are resolved; an unresolvable one cannot be scheduled', async (t) => {
  const doc = scheduledCompany();
  doc['timezone'] = '${COMPANY_TZ}';
  // Answered by the environment (not a secret): shown resolved.
  const resolved = resolveSchedules(Company.parse(doc), {
    resolve: (name) => (name === 'COMPANY_TZ' ? 'Asia/Tokyo' : undefined),
    secret: () => false,
  });
  t.equal(byName(resolved, 'standup').timezone, 'Asia/Tokyo');
  const unresolved = resolveSchedules(Company.parse(doc), { resolve: () => undefined });
  t.equal(byName(unresolved, 'standup').timezone, 'UTC', 'an empty answer falls back to UTC');
  const raw = byName(resolveSchedules(Company.parse(doc)), 'standup');
  t.match(raw.problem, /unknown timezone/);
  t.equal(scheduleView(raw, new Date()).next_run, '');
});

t.test(
  'a cron reference resolving to nothing, or to a hashed H, never fires (no every-minute default)',
  async (t) => {
    for (const value of [undefined, '', 'H H * * *']) {
      const doc = scheduledCompany();
      const units = doc['units'] as Array<{ schedules: Array<Record<string, unknown>> }>;
      units[0]!.schedules[0]!['cron'] = '${STANDUP_CRON}';
      const standup = byName(resolveSchedules(Company.parse(doc), { resolve: () => value }), 'standup');
      t.match(standup.problem, /is not a cron expression/, `resolved to ${JSON.stringify(value)}`);
      t.equal(scheduleView(standup, new Date()).next_run, '', 'no next_run');
    }
  },
);

t.test(
  'a cron reference resolving to @midnight is scheduled like @daily, not left without a firing',
  async (t) => {
    const doc = scheduledCompany();
    const units = doc['units'] as Array<{ schedules: Array<Record<string, unknown>> }>;
    units[0]!.schedules[0]!['cron'] = '${STANDUP_CRON}';
    const standup = byName(resolveSchedules(Company.parse(doc), { resolve: () => '@midnight' }), 'standup');
    t.equal(standup.problem, null);
    // Midnight in Berlin (the company timezone) is 23:00Z in winter.
    t.equal(scheduleView(standup, new Date('2026-01-05T12:00:00Z')).next_run, '2026-01-05T23:00:00.000Z');
  },
);

t.test('a schedule timeout is at most 7 days and a provider timeout at most an hour', async (t) => {
  const doc = scheduledCompany();
  const units = doc['units'] as Array<{ schedules: Array<Record<string, unknown>> }>;
  units[0]!.schedules[0]!['timeout_seconds'] = 9007199254740991;
  doc['providers'] = { llm: { main: { type: 'openai', model: 'm', timeout_seconds: 3601 } } };
  const problems = validateCompany(doc, { mode: ValidationMode.Write }).problems.map((p) => [
    p.kind,
    p.message,
  ]);
  t.same(problems.sort(), [
    ['out_of_range', 'must be at most 3600'],
    ['out_of_range', 'must be at most 604800'],
  ]);
  t.equal(
    scheduledDeadline('2026-12-01T00:00:00Z', 9007199254740991),
    null,
    'a stored one gets no deadline, not a throw',
  );
});

t.test('a hashed H cron is refused at write: its fire times would move on every read', async (t) => {
  const doc = scheduledCompany();
  const units = doc['units'] as Array<{ schedules: Array<Record<string, unknown>> }>;
  units[0]!.schedules[0]!['cron'] = 'H H * * *';
  const messages = validateCompany(doc, { mode: ValidationMode.Write }).problems.map((p) => p.message);
  t.ok(
    messages.some((m) => /not a cron expression .*no `H`/.test(m)),
    messages.join('; '),
  );
  units[0]!.schedules[0]!['cron'] = '0 9 * * THU';
  t.same(validateCompany(doc, { mode: ValidationMode.Write }).problems, [], 'day names with an H still pass');
});

t.test(
  'the document refuses schedules on human seats and an enabled lead target under a human lead',
  async (t) => {
    const doc = scheduledCompany();
    const units = doc['units'] as Array<Record<string, unknown>>;
    (units[1]!['schedules'] as Array<Record<string, unknown>>)[0]!['enabled'] = true;
    const roles = units[1]!['roles'] as Array<Record<string, unknown>>;
    roles[0]!['schedules'] = [{ name: 'nope', cron: '* * * * *', task: 'x' }];
    const messages = validateCompany(doc, { mode: ValidationMode.Write }).problems.map((p) => p.message);
    t.ok(messages.some((m) => /human seats cannot define schedules/.test(m)));
    t.ok(messages.some((m) => /hank is a human seat/.test(m)));
  },
);

t.test(
  'a timezone written in another case reads and fires in its IANA spelling; the document keeps what was written',
  async (t) => {
    const doc = scheduledCompany();
    doc['timezone'] = 'europe/berlin';
    const units = doc['units'] as Array<{ schedules: Array<Record<string, unknown>> }>;
    units[0]!.schedules[1]!['timezone'] = 'america/new_york';
    const written = validateCompany(doc, { mode: ValidationMode.Write });
    t.same(written.problems, []);
    t.equal(written.document?.timezone, 'europe/berlin', 'the stored document is not rewritten');
    const company = Company.parse(doc);
    t.equal(companyTimezone(company), 'Europe/Berlin', 'the company timezone');
    const list = resolveSchedules(company);
    t.equal(byName(list, 'standup').timezone, 'Europe/Berlin', 'a schedule on the company timezone');
    t.equal(byName(list, 'weekly-review').timezone, 'America/New_York', 'a schedule’s own');
    const now = new Date('2026-01-05T07:30:00Z');
    t.equal(scheduleView(byName(list, 'standup'), now).next_run, '2026-01-05T08:00:00.000Z');
    t.equal(scheduleView(byName(list, 'weekly-review'), now).next_run, '2026-01-09T21:00:00.000Z');

    doc['timezone'] = '${COMPANY_TZ}';
    const fromVar = resolveSchedules(Company.parse(doc), {
      resolve: () => 'asia/tokyo',
      secret: () => false,
    });
    t.equal(byName(fromVar, 'standup').timezone, 'Asia/Tokyo', 'a resolved reference alike');
    for (const [zone, shown] of [
      ['utc', 'UTC'],
      ['etc/gmt+5', 'Etc/GMT+5'],
      // Aliases keep the name written: the runtime's canonical id would show Asia/Kolkata as Asia/Calcutta.
      ['Asia/Kolkata', 'Asia/Kolkata'],
      ['US/Pacific', 'US/Pacific'],
      ['Europe/Kyiv', 'Europe/Kyiv'],
    ] as const) {
      doc['timezone'] = zone;
      t.equal(companyTimezone(Company.parse(doc)), shown, zone);
    }
  },
);

t.test(
  'an alias written in another case reads in its own IANA spelling, not its canonical zone',
  async (t) => {
    const doc = scheduledCompany();
    for (const [zone, shown] of [
      ['us/pacific', 'US/Pacific'],
      ['US/PACIFIC', 'US/Pacific'],
      ['asia/kolkata', 'Asia/Kolkata'],
      ['europe/kyiv', 'Europe/Kyiv'],
      ['est5edt', 'EST5EDT'],
      ['gb-eire', 'GB-Eire'],
      ['nz-chat', 'NZ-CHAT'],
      ['america/argentina/comodrivadavia', 'America/Argentina/ComodRivadavia'],
      ['etc/universal', 'Etc/Universal'],
      ['zulu', 'Zulu'],
      // A canonical zone still reads in its own spelling, an alias written right as written.
      ['america/los_angeles', 'America/Los_Angeles'],
      ['US/Pacific', 'US/Pacific'],
    ] as const) {
      doc['timezone'] = zone;
      const company = Company.parse(doc);
      t.equal(companyTimezone(company), shown, zone);
      t.equal(byName(resolveSchedules(company), 'standup').timezone, shown, `${zone}: a schedule on it`);
    }
    const units = doc['units'] as Array<{ schedules: Array<Record<string, unknown>> }>;
    units[0]!.schedules[1]!['timezone'] = 'us/eastern';
    t.equal(
      byName(resolveSchedules(Company.parse(doc)), 'weekly-review').timezone,
      'US/Eastern',
      'a schedule’s own',
    );
    const now = new Date('2026-01-05T07:30:00Z');
    t.equal(
      scheduleView(byName(resolveSchedules(Company.parse(doc)), 'weekly-review'), now).next_run,
      '2026-01-09T21:00:00.000Z',
      'fires as America/New_York',
    );
  },
);
