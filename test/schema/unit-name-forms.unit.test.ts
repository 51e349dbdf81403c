/* eslint-disable @typescript-eslint/no-unsafe-call -- tests edit untyped documents freely */
// Unit names that are one name in two Unicode forms (`Café` precomposed and `Cafe` + U+0301) read the same
// on every screen, yet a seat's `unit`, a lead's unit and `/config/units/{name}` reached only one of them.
import t from 'tap';
import { baseCompany, runnable, write } from '../fixtures/company/documents.js';
import { validateCompany } from '../../schema/company/index.js';

const composed = 'Caf\u00e9';
const decomposed = 'Cafe\u0301';

t.test('a unit name equal to another once normalised is refused on a new write, naming both', async (t) => {
  const doc = baseCompany();
  doc['units'].push({ name: composed, type: 'team' }, { name: decomposed, type: 'team' });
  const result = write(doc);
  t.notOk(result.valid);
  t.match(result.problems, [
    {
      path: 'units[2].name',
      kind: 'conflict',
      message: /already used by the unit at units\[1\].*Unicode/,
    },
  ]);
  t.equal(result.problems.length, 1);
});

t.test('names that differ in case or in letters stay distinct units', async (t) => {
  const doc = baseCompany();
  doc['units'].push(
    { name: composed, type: 'team' },
    { name: 'café', type: 'team' },
    { name: 'Cafe', type: 'team' },
  );
  t.same(write(doc).problems, []);
});

t.test('a stored revision holding both forms still loads, and an edit elsewhere goes through', async (t) => {
  const stored = baseCompany();
  stored['units'].push({ name: composed, type: 'team' }, { name: decomposed, type: 'team' });
  const reload = runnable(stored);
  t.ok(reload.valid, 'a reload runs it');
  t.match(reload.warnings, [{ kind: 'admission', path: 'units[2].name' }]);
  const edit = structuredClone(stored);
  edit['roles'][0]['goal'] = 'Another goal';
  const kept = validateCompany(edit, {
    mode: 'write',
    active: { document: stored, problems: write(stored).problems },
  });
  t.ok(kept.valid, 'held as a warning while the active revision holds it');
});
