/* eslint-disable @typescript-eslint/no-unsafe-call -- tests edit untyped documents freely */
// Company rules for units: nesting, leads, where a seat lands, and what manages names.
import t from 'tap';
import { baseCompany, platform, runnable, summary, write } from '../fixtures/company/documents.js';

t.test('units nest to any depth and inherit their lead from the parent', async (t) => {
  const doc = baseCompany();
  let parent = platform(doc);
  for (let depth = 0; depth < 6; depth++) {
    const child = { name: `Level ${depth}`, type: 'team' };
    parent['children'] = [child];
    parent = child;
  }
  const result = write(doc);
  t.ok(result.valid);
  const deepest = result.derived?.units.at(-1);
  t.match(deepest, { name: 'Level 5', lead: 'Bo Agent', lead_handle: 'bo-agent', parent: 'Level 4' });
  t.equal(
    deepest?.path,
    'units[0].children[0].children[0].children[0].children[0].children[0].children[0].children[0]',
  );
});

t.test('a dangling unit lead is a warning, not a refusal, in both modes', async (t) => {
  const doc = baseCompany();
  platform(doc)['lead'] = 'Nobody Here';
  for (const result of [write(doc), runnable(doc)]) {
    t.ok(result.valid);
    t.match(result.warnings, [
      {
        kind: 'dangling_reference',
        ref: 'lead',
        path: 'units[0].children[0].lead',
        from: 'Platform',
        to: 'Nobody Here',
        unit: 'Platform',
      },
    ]);
  }
});

t.test('a lead may name a seat by handle as well as by name', async (t) => {
  const doc = baseCompany();
  platform(doc)['lead'] = 'cy-agent';
  const result = write(doc);
  t.same(result.warnings, []);
  t.same(result.derived?.seats.find((s) => s.handle === 'cy-agent')?.lead_of, ['Platform']);
});

t.test('unit type is department or team and unit names are unique', async (t) => {
  const doc = baseCompany();
  platform(doc)['type'] = 'squad';
  doc['units'].push({ name: 'Platform', type: 'team' });
  t.same(summary(write(doc)).sort(), ['units[0].children[0].type unknown_value', 'units[1].name conflict']);
});

t.test('a root seat whose unit names no unit is a dangling reference; it lands nowhere', async (t) => {
  const doc = baseCompany();
  doc['roles'][0]['unit'] = 'Research';
  const result = write(doc);
  t.ok(result.valid);
  t.match(result.warnings, [
    { kind: 'dangling_reference', ref: 'unit', from: 'chief-agent', to: 'Research', seat: 'chief-agent' },
  ]);
  t.equal(result.derived?.seats[0]?.unit, null);
  doc['roles'][0]['unit'] = 'Platform';
  t.equal(write(doc).derived?.seats[0]?.unit, 'Platform');
});

t.test('a seat listed in one unit naming another is a conflict', async (t) => {
  const doc = baseCompany();
  platform(doc)['roles'][0]['unit'] = 'Engineering';
  t.same(summary(write(doc)), ['units[0].children[0].roles[0].unit conflict']);
  platform(doc)['roles'][0]['unit'] = 'Platform';
  t.ok(write(doc).valid);
});

t.test('manages names seats or units; anything else is a dangling reference', async (t) => {
  const doc = baseCompany();
  doc['roles'][0]['manages'] = ['Engineering', 'Hanna Lee', 'bo-agent', 'Ghost Team'];
  const result = write(doc);
  t.ok(result.valid);
  t.match(result.warnings, [{ ref: 'manages', path: 'roles[0].manages[3]', to: 'Ghost Team' }]);
  t.equal(result.warnings.length, 1);
});
