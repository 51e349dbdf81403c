// Company rules for schedules: human-led targets, cron, timezone, target and unique names.
import t from 'tap';
import { baseCompany, platform, summary, write } from '../fixtures/company/documents.js';

t.test('an enabled lead-targeted schedule under a human lead is an error', async (t) => {
  const doc = baseCompany();
  doc['units'][0]['schedules'] = [{ name: 'weekly', cron: '0 9 * * 1', task: 'plan', target: 'lead' }];
  const result = write(doc);
  t.same(summary(result), ['units[0].schedules[0].target conflict']);
  t.match(result.problems[0]?.message, /hanna-lee is a human seat/);
  doc['units'][0]['schedules'][0]['enabled'] = false;
  t.ok(write(doc).valid, 'a disabled one is allowed');
  doc['units'][0]['schedules'][0] = { name: 'weekly', cron: '0 9 * * 1', task: 'plan', target: 'each' };
  t.ok(write(doc).valid, 'each fans out to agent members only');
});

t.test('an inherited human lead counts, and so does a seat schedule under a human-led unit', async (t) => {
  const doc = baseCompany();
  delete platform(doc)['lead'];
  platform(doc)['schedules'] = [{ name: 'standup', cron: '0 9 * * 1-5', task: 't', target: 'lead' }];
  platform(doc)['roles'][0]['schedules'] = [{ name: 'mine', cron: '@daily', task: 't', target: 'lead' }];
  t.same(summary(write(doc)).sort(), [
    'units[0].children[0].roles[0].schedules[0].target conflict',
    'units[0].children[0].schedules[0].target conflict',
  ]);
});

t.test('schedules check cron, timezone, target and unique names per scope', async (t) => {
  const doc = baseCompany();
  doc['roles'][0]['schedules'] = [
    { name: 'a', cron: 'every day', task: 't' },
    { name: 'a', cron: '*/5 * * * *', task: 't', timezone: 'Atlantis/Capital' },
    { name: 'b', cron: '@hourly', task: 't', target: 'everyone', timeout_seconds: 0 },
    { name: 'c', cron: '${CRON}', task: 't', timezone: 'Asia/Tokyo', catchup: true },
  ];
  t.same(summary(write(doc)).sort(), [
    'roles[0].schedules[0].cron invalid',
    'roles[0].schedules[1].name conflict',
    'roles[0].schedules[1].timezone invalid',
    'roles[0].schedules[2].target unknown_value',
    'roles[0].schedules[2].timeout_seconds out_of_range',
  ]);
});
