/**
 * How the /work reads order and match what they are asked for (ops/work-tracker.md "Reads"): projects
 * without a target date after those with one, in either direction.
 */
import t from 'tap';
import { call } from './fixtures/gateway-harness.js';
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
