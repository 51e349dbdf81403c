/**
 * Two units naming one native work project key (ops/work-tracker.md "Projects"): the first in document
 * order owns the project, and each later declaration is a `duplicate_project` warning naming both units
 * and the key, on a write and on a reload; the document stays valid.
 */
import t from 'tap';
import { projectsOf, validateCompany } from '../../schema/index.js';

const unit = (name: string, project?: string, children?: unknown[]) => ({
  name,
  type: 'team',
  ...(project === undefined ? {} : { integrations: { work: { project } } }),
  ...(children === undefined ? {} : { children }),
});

const twins = (units: unknown[], mode: 'write' | 'runnable' = 'write') =>
  validateCompany({ name: 'Acme', units }, { mode }).warnings.filter((w) => w.kind === 'duplicate_project');

t.test(
  'a later unit naming a taken key warns at its declaration, naming both units and the key',
  async (t) => {
    const units = [unit('Engineering', 'ENG', [unit('Platform', 'ENG')]), unit('Sales', 'SALES')];
    const result = validateCompany({ name: 'Acme', units }, { mode: 'write' });
    t.equal(result.valid, true, 'a warning, not a refusal');
    const found = result.warnings.filter((w) => w.kind === 'duplicate_project');
    t.equal(found.length, 1);
    t.match(found[0], {
      kind: 'duplicate_project',
      path: 'units[0].children[0].integrations.work.project',
      segments: ['units', 0, 'children', 0, 'integrations', 'work', 'project'],
      unit: 'Platform',
      from: 'Platform',
      to: 'ENG',
    });
    t.match(found[0]!.message, /`Engineering`/);
    t.match(found[0]!.message, /`Platform`/);
    t.match(found[0]!.message, /project `ENG`/);
    t.match(found[0]!.message, /`Engineering` \(first in the document\) owns it/);
    t.equal(twins(units, 'runnable').length, 1, 'a reload of a stored revision says so too');
    t.same(
      projectsOf({ name: 'Acme', units }).map((p) => [p.key, p.unit]),
      [
        ['ENG', 'Engineering'],
        ['SALES', 'Sales'],
      ],
      'the first in the document still owns the project',
    );
  },
);

t.test('every declaration after the first warns, each naming the owner', async (t) => {
  const found = twins([unit('A team', 'OPS'), unit('B team', 'OPS'), unit('C team', 'OPS')]);
  t.same(
    found.map((w) => [w.path, w.from, w.to]),
    [
      ['units[1].integrations.work.project', 'B team', 'OPS'],
      ['units[2].integrations.work.project', 'C team', 'OPS'],
    ],
  );
  t.ok(
    found.every((w) => w.message.startsWith('units `A team` and ')),
    'the owner is the first unit in both',
  );
});

t.test('distinct keys, one declaration, or a key outside the grammar warn nothing', async (t) => {
  t.same(twins([unit('A team', 'OPS'), unit('B team', 'ENG'), unit('C team')]), []);
  const bad = validateCompany(
    { name: 'Acme', units: [unit('A team', 'not a key'), unit('B team', 'not a key')] },
    { mode: 'write' },
  );
  t.equal(bad.valid, false, 'the key itself is refused');
  t.same(
    bad.warnings.filter((w) => w.kind === 'duplicate_project'),
    [],
    'and not quoted in a warning',
  );
});

t.test('the warning carries the YAML line of the later declaration', async (t) => {
  const yaml = [
    'name: Acme',
    'units:',
    '  - name: Engineering',
    '    type: team',
    '    integrations:',
    '      work:',
    '        project: ENG',
    '  - name: Platform',
    '    type: team',
    '    integrations:',
    '      work:',
    '        project: ENG',
    '',
  ].join('\n');
  const doc = { name: 'Acme', units: [unit('Engineering', 'ENG'), unit('Platform', 'ENG')] };
  const [w] = validateCompany(doc, { mode: 'write', yamlText: yaml }).warnings.filter(
    (x) => x.kind === 'duplicate_project',
  );
  t.equal(w?.line, 12);
});
