import t from 'tap';
import { baseCompany, runnable, write } from '../fixtures/company/documents.js';

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
