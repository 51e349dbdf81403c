/**
 * A single-valued query parameter given twice is refused on every route family, with the code that family
 * answers a bad query value with (ops/errors.md), never read as its first value; a list filter still takes
 * repeats. One `svc serve` node with both native backends, over its real listener.
 */
import t from 'tap';
import { applyNativeWork, nativeBackends, nativeWorkCompany } from '../harness/native-work.js';
import { startNode, TOKEN } from '../harness/serve-node.js';

type Json = Record<string, unknown>;
const auth = { authorization: `Bearer ${TOKEN}` };

/** [family, method, path with one parameter twice, the family's code]. */
const repeated: ReadonlyArray<readonly [string, 'GET' | 'POST', string, string]> = [
  ['work list', 'GET', '/work?project=ENG&project=OPS', 'bad_params'],
  ['work paging', 'GET', '/work?limit=1&limit=50', 'bad_params'],
  ['work write op_id', 'POST', '/work/ENG-1/purge?op_id=a&op_id=b', 'op_id_invalid'],
  ['pages', 'GET', '/pages?q=alpha&q=beta', 'bad_params'],
  ['pages cursor', 'GET', '/pages?cursor=x&cursor=y', 'bad_params'],
  ['config read', 'GET', '/config?format=json&format=yaml', 'invalid_query'],
  ['config diff', 'GET', '/config/revisions/{rev}/diff?against=active&against=active', 'invalid_query'],
  ['config revisions', 'GET', '/config/revisions?limit=1&limit=2', 'bad_params'],
  ['fleet removal', 'POST', '/fleet/broker/remove/solo?confirm=solo&confirm=solo', 'invalid_query'],
  ['backups', 'POST', '/backup?dir=/tmp/a&dir=/tmp/b', 'backup_dir_invalid'],
  ['events', 'GET', '/events?category=decision&category=system', 'bad_params'],
  ['event by id', 'GET', '/query/event?id=a&id=b', 'bad_params'],
  ['query', 'GET', '/query/config?revision=active&revision=other', 'bad_params'],
  // A route or question reading no parameter refuses any as unread first (query-params.every-route).
  ['query tokens', 'GET', '/query/tokens_breakdown?since_days=1&since_days=2', 'bad_params'],
  ['token breakdown', 'GET', '/tokens/breakdown?recent_turns=1&recent_turns=2', 'bad_params'],
  ['seats activity', 'GET', '/agents/activity?days=1&days=30', 'bad_params'],
  ['token metrics', 'GET', '/tokens/series?bucket=day&bucket=hour', 'bad_params'],
  ['native work question', 'GET', '/query/work_items?project=ENG&project=OPS', 'bad_params'],
];

t.test('a repeated single-valued parameter is 400 with its family code on every route family', async (t) => {
  const node = await startNode(t, nativeBackends);
  const rev = await applyNativeWork(t, [node.url], nativeWorkCompany(), 'repeated params');

  for (const [family, method, path, code] of repeated) {
    const res = await fetch(`${node.url}${path.replace('{rev}', rev)}`, { method, headers: auth });
    const body = (await res.json()) as Json;
    t.equal(res.status, 400, `${family}: ${method} ${path}`);
    t.match(body, { error: code, detail: /is given 2 times/ }, family);
  }

  // A list filter takes repeats (and commas) as before; given once, a parameter is read as before.
  for (const path of [
    '/work?status=todo&status=done',
    '/work?status=todo,done',
    '/query/work_items?status=todo&status=done',
    '/config/revisions?limit=1',
    '/events?category=decision',
  ]) {
    const res = await fetch(`${node.url}${path}`, { headers: auth });
    t.equal(res.status, 200, `${path}: ${res.status === 200 ? '' : await res.text()}`);
  }
});
