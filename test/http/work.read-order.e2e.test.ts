/**
 * How the /work reads order and match what they are asked for (ops/work-tracker.md "Reads"): projects
 * without a target date after those with one, in either direction; an activity `actor` naming a seat in
 * any case, a token id only as it is spelled.
 */
import t from 'tap';
import { CI, OPS, call } from './fixtures/gateway-harness.js';
import { startWorkHarness } from './fixtures/work-harness.js';

type Json = Record<string, unknown>;

const keys = async (url: string) => ((await call(url)).json?.projects as Json[]).map((p) => p.key);

t.test('projects sorted by target put those with no target date last, either way', async (t) => {
  const w = await startWorkHarness(t);
  // ENG has a target date; OPS and the archived OLD have none.
  t.same(await keys(`${w.base}/work/projects?sort=target&archived=true`), ['ENG', 'OLD', 'OPS']);
  // Ties (the undated ones among themselves) go by key in the sort's direction, as on every column.
  t.same(await keys(`${w.base}/work/projects?sort=-target&archived=true`), ['ENG', 'OPS', 'OLD']);
});

t.test('the activity actor filter names a seat in any case and a token id as spelled', async (t) => {
  const w = await startWorkHarness(t);
  const create = (auth: string, title: string) =>
    call(`${w.base}/work`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: JSON.stringify({ project: 'ENG', title }),
    });
  // The ops token acts as the seat ada it is bound to; the ci token, bound to nobody, as its id `ci`.
  t.equal((await create(OPS, 'By Ada')).status, 201);
  t.equal((await create(CI, 'By the ci token')).status, 201);
  const actors = async (actor: string) => {
    const answer = await call(`${w.base}/work/activity?actor=${actor}`);
    return (answer.json?.records as Json[]).map((r) => r.actor);
  };
  t.same(await actors('ada'), ['ada']);
  t.same(await actors('Ada'), ['ada'], 'a seat handle in capitals is the seat');
  t.same(await actors('ADA'), ['ada']);
  t.same(await actors('ci'), ['ci']);
  t.same(await actors('CI'), [], 'token ids are case-sensitive: CI is another token');
});
