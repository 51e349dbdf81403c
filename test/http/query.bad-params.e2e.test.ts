/**
 * Every `/query/{what}` question refuses a bad parameter with one code, 400 `bad_params` (spec error
 * table: "bad parameter on `/work/projects/{key}` and similar"; `invalid_query` is `dry_run`'s), whichever
 * subsystem answers it: a required one missing, a value outside its set, one it does not read, one given
 * twice. One `svc serve` node with both native backends, over its real listener.
 */
import t from 'tap';
import { applyNativeWork, nativeBackends, nativeWorkCompany } from '../harness/native-work.js';
import { startNode, TOKEN } from '../harness/serve-node.js';

type Json = Record<string, unknown>;
const auth = { authorization: `Bearer ${TOKEN}` };

/** [question and query, what is wrong with it]. */
const bad: ReadonlyArray<readonly [string, string]> = [
  ['agent', 'no id'],
  ['memory', 'no id'],
  ['episode?id=ada', 'no episode'],
  ['event', 'no event_id'],
  ['trace', 'no trace_id'],
  ['turn', 'no turn_id'],
  ['work_item', 'no id'],
  ['page', 'no id'],
  ['events?limit=many', 'limit not a number'],
  ['events?before_time=2026-01-01T00:00:00Z', 'half a cursor'],
  ['events?category=nope', 'category outside the eight'],
  ['event_series?bucket=minute', 'bucket outside its set'],
  ['turns?nope=1', 'a parameter it does not read'],
  ['phases?limit=0', 'limit out of range'],
  ['tokens_series?bucket=minute', 'bucket outside its set'],
  ['config_entities?kind=secrets', 'kind outside its set'],
  ['work_projects?archived=maybe', 'archived outside its set'],
  ['pages?limit=0', 'limit out of range'],
  ['schedules?scope=a&scope=b', 'a parameter twice, of a question nobody described'],
  ['integrations?x=1&x=2', 'a parameter twice, of a question reading none'],
];

/** Parameters that are lists (repeats taken) or whose repeat another check answers first. */
const repeatable = new Set(['status', 'group', 'id', 'seat']);

t.test('every query question answers a bad parameter 400 bad_params', async (t) => {
  const node = await startNode(t, nativeBackends);
  await applyNativeWork(t, [node.url], nativeWorkCompany(), 'bad params');
  const ask = async (query: string): Promise<{ status: number; body: Json }> => {
    const res = await fetch(`${node.url}/query/${query}`, { headers: auth });
    return { status: res.status, body: (await res.json()) as Json };
  };

  for (const [query, what] of bad) {
    const { status, body } = await ask(query);
    t.equal(status, 400, `${query}: ${what}`);
    t.match(body, { error: 'bad_params', detail: String }, `${query}: ${what}`);
  }

  // Each listed question given one of its single-valued parameters twice.
  const questions = (
    (await (await fetch(`${node.url}/query`, { headers: auth })).json()) as {
      questions: Array<{ name: string; params: Array<{ name: string }> | null }>;
    }
  ).questions;
  t.ok(questions.length > 20, 'the node lists its questions');
  let asked = 0;
  for (const q of questions) {
    const param = q.params?.find((p) => !repeatable.has(p.name))?.name;
    if (param === undefined) continue;
    asked += 1;
    const { status, body } = await ask(`${q.name}?${param}=1&${param}=2`);
    t.equal(status, 400, `${q.name}: ${param} twice`);
    t.equal(body['error'], 'bad_params', `${q.name}: ${param} twice`);
  }
  t.ok(asked > 15, `${asked} questions asked with a parameter twice`);
});
