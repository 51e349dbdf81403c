/**
 * `GET /work/projects?unit=` names a unit as the rest of the service does (ops/work-tracker.md "Projects"):
 * by its name as written. Unit names are the units' identity and unique only as written, so a company may
 * hold `Engineering` and `engineering` (the validator takes both, as `/config/units/{name}` and a seat's
 * `unit` tell them apart); matching in any case would mix their projects. Handles and project keys match
 * in any case because their grammar fixes their case; a unit name has no such case.
 */
import t from 'tap';
import { nativeBackends } from '../harness/native-work.js';
import { startNode, TOKEN } from '../harness/serve-node.js';
import { until } from '../harness/until.js';

type Json = Record<string, unknown>;
const auth = { authorization: `Bearer ${TOKEN}` };

t.test('the unit filter names a unit as written, as the entity routes do', async (t) => {
  const node = await startNode(t, nativeBackends);
  const get = async (path: string) => {
    const res = await fetch(`${node.url}${path}`, { headers: auth });
    return { status: res.status, json: (await res.json()) as Json };
  };
  const keys = async (query: string) =>
    ((await get(`/work/projects?${query}`)).json['projects'] as Json[]).map((p) => p['key']);
  const company = {
    name: 'Acme',
    timezone: 'UTC',
    units: [
      { name: 'Engineering', type: 'team', integrations: { work: { project: 'ENG' } } },
      { name: 'engineering', type: 'team', integrations: { work: { project: 'PLAT' } } },
      { name: 'Ops', type: 'team', integrations: { work: { project: 'OPS' } } },
    ],
  };
  const put = await fetch(`${node.url}/config`, {
    method: 'PUT',
    headers: { ...auth, 'content-type': 'application/json', 'x-summary': 'two engineering units' },
    body: JSON.stringify(company),
  });
  t.equal(put.status, 201, 'a company may name two units that differ only in case');
  await until(
    () => keys(''),
    (k) => k.length === 3,
  );

  t.same(await keys('unit=Engineering'), ['ENG'], 'Engineering owns ENG');
  t.same(await keys('unit=engineering'), ['PLAT'], 'engineering owns PLAT, not ENG');
  t.same(await keys('unit=ENGINEERING'), [], 'a spelling no unit has names none');
  t.same(await keys('unit=ops'), [], 'Ops is named as written');
  t.same(await keys('unit=Ops'), ['OPS']);
  t.equal((await get('/config/units/Engineering')).status, 200, 'the entity route reads the name as written');
  t.equal((await get('/config/units/ENGINEERING')).status, 404, 'and finds no unit in another case');
});
