/**
 * A company document kept as a source file often leaves `handle` out; the stored document has one (written at
 * the first write). A full PUT of that file keeps each seat's stored handle — its agent id, memory and work —
 * when a stored seat has the same name, including a handle chosen by hand and one an older build derived
 * otherwise (`Søren` was `s-ren` before ø was spelled `o`). Against a built `svc serve`.
 */
import t from 'tap';
import { call, type Json } from '../harness/api.js';
import { startNode } from '../harness/serve-node.js';
import { until } from '../harness/until.js';

const stored = {
  name: 'Acme',
  roles: [
    { name: 'Ada Lovelace', handle: 'ada', goal: 'Keep the platform up.' },
    { name: 'Søren Berg', handle: 's-ren-berg', goal: 'Answer support.' },
  ],
};

/** The agent rows once the seats are exactly `handles` (the read model follows the apply). */
const agentsOnce = (url: string, handles: string[]): Promise<Map<string, string>> =>
  until(
    () => agents(url),
    (rows) => JSON.stringify([...rows.keys()].sort()) === JSON.stringify([...handles].sort()),
    10_000,
  );

const agents = async (url: string): Promise<Map<string, string>> => {
  const res = await call(url, 'GET', '/agents');
  const rows = (Array.isArray(res.body) ? res.body : res.body['agents']) as Array<{
    id: string;
    agent_id: string;
  }>;
  return new Map(rows.map((row) => [row.id, row.agent_id]));
};

t.test('a full PUT without handles keeps the seats its stored document names', async (t) => {
  const node = await startNode(t);
  t.equal((await call(node.url, 'PUT', '/config', stored)).status, 201);
  const before = await agentsOnce(node.url, ['ada', 's-ren-berg']);

  const fromFile = {
    name: 'Acme',
    roles: [
      { name: 'Ada Lovelace', goal: 'Keep the platform up, and cheap.' },
      { name: 'Søren Berg', goal: 'Answer support.' },
      { name: 'Grace Hopper', goal: 'Review the code.' },
    ],
  };
  const put = await call(node.url, 'PUT', '/config', fromFile);
  t.equal(put.status, 201, JSON.stringify(put.body).slice(0, 400));
  // No seat removed, the new one derived.
  const after = await agentsOnce(node.url, ['ada', 'grace-hopper', 's-ren-berg']);
  t.equal(after.get('ada'), before.get('ada'), 'the same agent id');
  t.equal(after.get('s-ren-berg'), before.get('s-ren-berg'));

  const read = await call(node.url, 'GET', '/config');
  const roles = (read.body['document'] ?? read.body) as Json;
  const handles = ((roles['roles'] as Json[] | undefined) ?? []).map((r) => r['handle']);
  t.same(handles, ['ada', 's-ren-berg', 'grace-hopper'], 'the stored document carries the kept handles');

  // An entity write of the seat by its stored name, without handle, edits that seat.
  const entity = await call(node.url, 'PUT', '/config/roles/ada', { name: 'Ada Lovelace', goal: 'Edited.' });
  t.equal(entity.status, 201, JSON.stringify(entity.body).slice(0, 400));
  const edited = await agentsOnce(node.url, ['ada', 'grace-hopper', 's-ren-berg']);
  t.equal(edited.get('ada'), before.get('ada'));
  const other = await call(node.url, 'PUT', '/config/roles/ada', { name: 'Grace Hopper' });
  t.equal(other.body['error'], 'identity_mismatch', 'a body naming another seat is still refused');

  // A handle written in the file is the operator's choice: it renames the seat as before.
  const renamed = { name: 'Acme', roles: [{ name: 'Ada Lovelace', handle: 'ada-l', goal: 'x' }] };
  t.equal((await call(node.url, 'PUT', '/config', renamed)).status, 201);
  t.ok(await agentsOnce(node.url, ['ada-l']));
});
