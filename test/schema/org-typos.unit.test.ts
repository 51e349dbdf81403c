/* eslint-disable @typescript-eslint/no-unsafe-call -- tests edit untyped documents freely */
import t from 'tap';
import { baseCompany, runnable, write } from '../fixtures/company/documents.js';

t.test(
  'a misspelled lead, manages or unit stays a warning that names what it most likely meant',
  async (t) => {
    const doc = baseCompany();
    doc['units'][0]['children'][0]['lead'] = 'Bo Agnet';
    doc['roles'][0]['manages'] = ['Enginering', 'cy-agnet', 'Nobody At All'];
    doc['roles'].push({ name: 'Dee Agent', unit: 'Platfrom' });
    const result = write(doc);
    t.ok(result.valid, 'dangling references are warnings (spec write rule 1)');
    t.same(
      result.warnings.map((w) => [w.path, w.ref, w.to, w.message]),
      [
        [
          'roles[1].unit',
          'unit',
          'Platfrom',
          'names no unit; the seat lands nowhere until the unit exists; did you mean `Platform`?',
        ],
        ['units[0].children[0].lead', 'lead', 'Bo Agnet', 'names no seat; did you mean `Bo Agent`?'],
        [
          'roles[0].manages[0]',
          'manages',
          'Enginering',
          'names no seat or unit; did you mean `Engineering`?',
        ],
        ['roles[0].manages[1]', 'manages', 'cy-agnet', 'names no seat or unit; did you mean `cy-agent`?'],
        ['roles[0].manages[2]', 'manages', 'Nobody At All', 'names no seat or unit'],
      ],
    );
  },
);

t.test(
  'an enabled lead schedule under a misspelled lead is refused, saying the lead names nobody',
  async (t) => {
    const doc = baseCompany();
    const platform = doc['units'][0]['children'][0];
    platform['lead'] = 'Bo Agnet';
    platform['schedules'] = [{ name: 'standup', cron: '0 9 * * 1-5', task: 'plan the day', target: 'lead' }];
    t.match(write(doc).problems, [
      {
        path: 'units[0].children[0].schedules[0].target',
        kind: 'conflict',
        message: /the lead of this scope names no single seat/,
      },
    ]);
    t.ok(runnable(doc).valid, 'a stored revision with it still loads');
  },
);
