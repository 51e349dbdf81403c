/**
 * Fuzzing a configured `svc serve` with both native backends, a project with items and a page, through raw
 * sockets (fixtures/fuzz-requests.ts): paths also name what the node holds (the project, its items, a seat,
 * the page) and bodies also take the shapes the work and page writes read, so generated requests reach the
 * handlers' own checks rather than stopping at `no_active_revision`. No 5xx, no hang, no crash.
 * `FUZZ_RUNS` sets the number of cases (default 1500; `scripts/fuzz.sh` runs a longer one).
 */
import fc from 'fast-check';
import t from 'tap';
import { startNode, TOKEN } from '../harness/serve-node.js';
import { until } from '../harness/until.js';
import { fuzzNode, requests } from './fixtures/fuzz-requests.js';

const runs = Number(process.env['FUZZ_RUNS'] ?? 1500);
const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'x-summary': 'fuzz' };

const company = {
  name: 'Acme',
  timezone: 'UTC',
  units: [
    {
      name: 'Engineering',
      type: 'team',
      integrations: { work: { project: 'ENG' }, wiki: { space: 'ENG' } },
      roles: [
        { name: 'Ada', handle: 'ada', kind: 'human', contact: { operator_id: 'ops' } },
        { name: 'Bo', handle: 'bo', kind: 'human', contact: { chat_user_id: 'U0BO' } },
      ],
    },
  ],
};

async function post(url: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(url, { method: 'POST', headers: auth, body: JSON.stringify(body) });
  const json = (await res.json()) as Record<string, unknown>;
  if (res.status >= 300) throw new Error(`${url}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

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
  const node = await startNode(t, 'tracker: {backend: native}\nknowledge: {backend: native}');
  const put = await fetch(`${node.url}/config`, {
    method: 'PUT',
    headers: auth,
    body: JSON.stringify(company),
  });
  t.equal(put.status, 201, `the company is stored: ${await put.clone().text()}`);
  await until(
    () => fetch(`${node.url}/work/projects`, { headers: auth }).then((r) => r.json() as Promise<{ projects?: unknown[] }>), // prettier-ignore
    (p) => p.projects?.length === 1,
  );
  const keys: string[] = [];
  for (const title of ['First', 'Second', 'Third'])
    keys.push(String((await post(`${node.url}/work`, { project: 'ENG', title, assignees: ['ada'] }))['key']));
  const page = await post(`${node.url}/pages`, { container: 'ENG', title: 'Runbook', body: 'Steps' });
  const known = [...keys, 'ENG', 'eng', 'ada', 'bo', 'ops', 'Engineering', String(page['page_id'])];
  t.notOk(known.includes('undefined'), `seeded: ${known.join(' ')}`);

  const seen = await fuzzNode(t, node, requests({ known, bodies: writes }), runs);
  t.ok((seen.get(200) ?? 0) + (seen.get(201) ?? 0) > 0, 'some cases were served');
  t.ok(seen.has(400), 'some were refused for their bodies or parameters');
});
