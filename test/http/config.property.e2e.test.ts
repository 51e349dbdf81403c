import fc from 'fast-check';
import t from 'tap';
import { readRevision } from '../../projections/index.js';
import { validateCompany } from '../../schema/index.js';
import { company, startConfigNode } from './fixtures/config-node.js';

/** Random edits of a valid company: set, delete or retype a field somewhere in it. */
const mutation = fc.record({
  path: fc.array(
    fc.oneof(
      fc.constantFrom(
        'mission',
        'goal',
        'name',
        'roles',
        'units',
        'providers',
        'llm',
        'main',
        'kind',
        'handle',
        'children',
        'lead',
        'type',
        'api_keys',
        'mcp_servers',
        'env',
        'token_budget',
        'schedules',
      ),
      fc.nat(3),
    ),
    { minLength: 1, maxLength: 5 },
  ),
  value: fc.oneof(
    fc.jsonValue({ maxDepth: 2 }),
    fc.constant(null),
    fc.constantFrom('human', 'robot', '${X}', 'x ${Y}', '', -1, 1e12),
  ),
});

function mutate(
  doc: Record<string, unknown>,
  edit: { path: Array<string | number>; value: unknown },
): unknown {
  let at: unknown = doc;
  for (const step of edit.path.slice(0, -1)) {
    if (at === null || typeof at !== 'object') return doc;
    const next = (at as Record<string | number, unknown>)[step];
    if (next === undefined) (at as Record<string | number, unknown>)[step] = {};
    at = (at as Record<string | number, unknown>)[step];
  }
  if (at !== null && typeof at === 'object')
    (at as Record<string | number, unknown>)[edit.path[edit.path.length - 1] as string] = edit.value;
  return doc;
}

t.test(
  'random and mutated documents through PUT, PATCH and dry runs: never a 5xx, never an invalid revision stored',
  async (t) => {
    const node = await startConfigNode(t);
    await node.call('PUT', '/config', { body: company(), headers: { 'x-summary': 'base' } });
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc
            .array(mutation, { minLength: 1, maxLength: 3 })
            .map((edits) =>
              edits.reduce<unknown>((doc, e) => mutate(doc as Record<string, unknown>, e), company()),
            ),
          fc.jsonValue({ maxDepth: 3 }),
        ),
        fc.constantFrom('PUT', 'PATCH', 'PUT?dry_run=true', 'PATCH?dry_run=true'),
        async (doc, how) => {
          const [method, query] = how.split('?') as [string, string | undefined];
          const res = await node.call(method, `/config${query ? `?${query}` : ''}`, {
            body: JSON.stringify(doc),
            headers: { 'x-summary': 'fuzz', 'content-type': 'application/json' },
          });
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          await res.arrayBuffer();
          return res.status < 500;
        },
      ),
      { numRuns: 150 },
    );
    t.comment(`statuses: ${JSON.stringify([...statuses])}`);
    const state = node.configuration.view.state;
    let invalid = 0;
    for (const id of state.revisions.keys()) {
      const record = await readRevision(state, id);
      if (!validateCompany(record?.payload, { mode: 'runnable' }).valid) invalid += 1;
    }
    t.equal(invalid, 0, `all ${state.revisions.size} stored revisions validate`);
    t.ok(state.revisions.size >= 1);
  },
);
