/**
 * Fuzzing a configured `svc serve` with both native backends, a project with items and a page, through raw
 * sockets (fixtures/fuzz-requests.ts): paths also name what the node holds (the project, its items, a seat,
 * the page) and bodies also take the shapes the work and page writes read, so generated requests reach the
 * handlers' own checks rather than stopping at `no_active_revision`. No 5xx, no hang, no crash.
 * `FUZZ_RUNS` sets the number of cases (default 1500; `scripts/fuzz.sh` runs a longer one).
 */
import fc from 'fast-check';
import t from 'tap';
import { fuzzNode, requests } from './fixtures/fuzz-requests.js';
import { startSeededNode } from './fixtures/seeded-node.js';

const runs = Number(process.env['FUZZ_RUNS'] ?? 1500);
/** Values the work and page writes read, some well formed, most not. */
const scalar = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.constantFrom(
    'ENG',
    'eng',
    'ENG-1',
    'ada',
    'bo',
    'todo',
    'in_progress',
    'done',
    'high',
    '2027-02-30',
    '',
  ),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
);
const value = fc.oneof(scalar, fc.array(scalar, { maxLength: 3 }), fc.dictionary(fc.string({ maxLength: 6 }), scalar, { maxKeys: 3 })); // prettier-ignore
const fieldNames = [
  'project', 'title', 'description', 'type', 'priority', 'assignees', 'watchers', 'labels', 'links',
  'checklist', 'fields', 'asked_of', 'due_date', 'status', 'to', 'op_id', 'body', 'container', 'parent_id',
  'base_version', 'reason', 'until', 'items', 'view', 'name', 'filters', 'priorities',
]; // prettier-ignore
const writes = fc
  .dictionary(fc.constantFrom(...fieldNames), value, { maxKeys: 6 })
  .map((fields) => JSON.stringify(fields));

t.test('generated requests to a configured node never get a 5xx, a hang or a crash', async (t) => {
  const { node, known } = await startSeededNode(t);
  t.notOk(known.includes('undefined'), `seeded: ${known.join(' ')}`);
  const seen = await fuzzNode(t, node, requests({ known, bodies: writes }), runs);
  t.ok((seen.get(200) ?? 0) + (seen.get(201) ?? 0) > 0, 'some cases were served');
  t.ok(seen.has(400), 'some were refused for their bodies or parameters');
});
