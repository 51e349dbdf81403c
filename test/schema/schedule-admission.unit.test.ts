import t from 'tap';
import { baseCompany, runnable, write } from '../fixtures/company/documents.js';
import { validateCompany } from '../../schema/company/index.js';

const withSchedule = (schedule: Record<string, unknown>, timezone?: string) => {
  const doc = baseCompany();
  doc['roles'][0]['schedules'] = [{ name: 'standup', task: 'post the plan', ...schedule }];
  doc['units'][0]['children'][0]['schedules'] = [{ name: 'weekly', cron: '0 9 * * 1', task: 'plan' }];
  if (timezone !== undefined) doc['timezone'] = timezone;
  return doc;
};

t.test(
  'a write refuses a cron the parser refuses, at the schedule path, with the parser reason',
  async (t) => {
    for (const [cron, reason] of [
      ['61 8 * * 1', /61 expected range 0-59/],
      ['30 9 * * MONDAY-FRI', /cannot resolve alias/],
      ['0 25 * * *', /25 expected range 0-23/],
      ['0 0 31 2 *', /day of month/],
    ] as const) {
      const result = write(withSchedule({ cron }));
      t.notOk(result.valid, cron);
      t.match(
        result.problems,
        [{ path: 'roles[0].schedules[0].cron', kind: 'invalid', message: reason }],
        cron,
      );
      t.equal(result.problems.length, 1, `${cron}: one problem`);
      t.match(result.problems[0]?.message, cron, 'the problem quotes the expression');
    }
  },
);

t.test('a unit schedule is checked the same way', async (t) => {
  const doc = withSchedule({ cron: '@daily' });
  doc['units'][0]['children'][0]['schedules'][0]['cron'] = '0 9 * * 8';
  t.match(write(doc).problems, [{ path: 'units[0].children[0].schedules[0].cron', kind: 'invalid' }]);
});

t.test('expressions the parser runs are accepted, and a ${VAR} waits for its value', async (t) => {
  for (const cron of [
    '0 9 * * MON-FRI',
    '*/15 * * * *',
    '0 0 9 * * 1-5',
    '@hourly',
    '0 9 L * *',
    '${STANDUP_CRON}',
  ]) {
    const result = write(withSchedule({ cron }));
    t.same(result.problems, [], cron);
  }
});

t.test('a write accepts @midnight, which the grammar lists, as @daily', async (t) => {
  t.same(write(withSchedule({ cron: '@midnight' })).problems, []);
});

t.test('a stored revision with such a cron still loads, with a warning', async (t) => {
  const result = runnable(withSchedule({ cron: '61 8 * * 1' }));
  t.ok(result.valid);
  t.match(result.warnings, [{ path: 'roles[0].schedules[0].cron', kind: 'admission', message: /0-59/ }]);
});

t.test('an unknown timezone is refused where it is written, naming it', async (t) => {
  const own = write(withSchedule({ cron: '@daily', timezone: 'Europe/Berln' }));
  t.match(own.problems, [
    { path: 'roles[0].schedules[0].timezone', kind: 'invalid', message: /unknown timezone "Europe\/Berln"/ },
  ]);
  const company = write(withSchedule({ cron: '@daily' }, 'Mars/Olympus'));
  t.match(company.problems, [{ path: 'timezone', kind: 'invalid', message: /"Mars\/Olympus"/ }]);
  t.same(write(withSchedule({ cron: '@daily', timezone: 'America/New_York' }, 'Europe/Berlin')).problems, []);
});

t.test(
  'a schedule name past 64 characters or holding a control character refuses a new write, at its path, unquoted',
  async (t) => {
    for (const [name, kind] of [
      ['x'.repeat(65), 'out_of_range'],
      ['x'.repeat(100_000), 'out_of_range'],
      ['a\nb', 'shape'],
      ['tab\there', 'shape'],
      ['half \ud800', 'shape'],
    ] as const) {
      const result = write(withSchedule({ cron: '@daily', name }));
      const label = `${JSON.stringify(name.slice(0, 20))} (${name.length} characters)`;
      t.notOk(result.valid, label);
      t.match(result.problems, [{ path: 'roles[0].schedules[0].name', kind }], label);
      t.equal(result.problems.length, 1, `${label}: one problem`);
      t.ok((result.problems[0]?.message.length ?? 0) < 200, `${label}: the name is not quoted`);
    }
    const unit = withSchedule({ cron: '@daily' });
    unit['units'][0]['children'][0]['schedules'][0]['name'] = 'y'.repeat(3000);
    t.match(write(unit).problems, [{ path: 'units[0].children[0].schedules[0].name', kind: 'out_of_range' }]);
    for (const name of [
      'x'.repeat(64),
      'nightly-sweep',
      'Sweep_2.b',
      '9am',
      'Morning standup',
      'Revue du lundi (équipe)',
      '-sweep',
    ]) {
      t.same(write(withSchedule({ cron: '@daily', name })).problems, [], name);
    }
  },
);

t.test(
  'a stored revision with a long schedule name still loads, and a write that keeps it goes through',
  async (t) => {
    const stored = withSchedule({ cron: '@daily', name: 'x'.repeat(3000) });
    const reload = runnable(stored);
    t.ok(reload.valid, 'a reload runs it');
    t.match(reload.warnings, [{ path: 'roles[0].schedules[0].name', kind: 'admission' }]);
    t.equal(reload.document?.roles?.[0]?.schedules?.[0]?.name.length, 3000, 'kept as written');

    const active = { document: stored, problems: write(stored).problems };
    const edit = withSchedule({ cron: '@daily', name: 'x'.repeat(3000) });
    edit['roles'][0]['goal'] = 'Another goal';
    const kept = validateCompany(edit, { mode: 'write', active });
    t.ok(kept.valid, 'an edit elsewhere is not refused for the name the active revision holds');
    t.match(kept.warnings, [{ path: 'roles[0].schedules[0].name', kind: 'admission' }]);

    const renamed = withSchedule({ cron: '@daily', name: 'y'.repeat(3000) });
    t.notOk(validateCompany(renamed, { mode: 'write', active }).valid, 'a new long name is refused');
  },
);

t.test(
  "a write refuses a step wider than its field's range, which cron reads as one value per larger unit, and a stored one keeps firing",
  async (t) => {
    for (const [cron, field] of [
      ['*/60 * * * *', /minute.*0-59/],
      ['*/61 * * * *', /minute/],
      ['0 */24 * * *', /hour.*0-23/],
      ['0 0 */32 * *', /day of month.*1-31/],
      ['0 0 * */13 *', /month.*1-12/],
      ['0 0 * * */8', /day of week.*0-7/],
      ['*/60 * * * * *', /second.*0-59/],
      ['0 */60 * * * *', /minute/],
      ['5-40/60 * * * *', /minute/],
    ] as const) {
      const result = write(withSchedule({ cron }));
      t.match(
        result.problems,
        [{ path: 'roles[0].schedules[0].cron', kind: 'invalid', message: field }],
        cron,
      );
      t.equal(result.problems.length, 1, `${cron}: one problem`);
    }
    for (const cron of [
      '*/59 * * * *',
      '0 */23 * * *',
      '0 0 */31 * *',
      '0 0 1 */12 *',
      '0 0 * * */7',
      '*/45 * * * *',
    ]) {
      t.same(write(withSchedule({ cron })).problems, [], `${cron} is accepted`);
    }
    const stored = runnable(withSchedule({ cron: '*/60 * * * *' }));
    t.ok(stored.valid, 'a reload runs it');
    t.match(stored.warnings, [{ path: 'roles[0].schedules[0].cron', kind: 'admission' }]);
  },
);
