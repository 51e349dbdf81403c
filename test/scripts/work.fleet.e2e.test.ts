/**
 * Two `svc serve` nodes with the native tracker and knowledge base on one nats-server. Items created in one
 * project through both at once: every create gets its own key (ENG-1..ENG-N, none twice, none skipped), and
 * both nodes list the same items, each folded from the shared work stream. Pages written through both at
 * once: of two creates with one title and of two edits of one version, exactly one wins, and both nodes
 * read the same page.
 */
import t from 'tap';
import { startFleetNode } from '../harness/fleet-node.js';
import { startNatsServer } from '../harness/nats-server.js';
import { applyNativeWork, nativeBackends, nativeWorkCompany } from '../harness/native-work.js';
import { TOKEN } from '../harness/serve-node.js';
import { until } from '../harness/until.js';

const auth = { authorization: `Bearer ${TOKEN}` };
type Json = Record<string, unknown>;

const get = async (url: string): Promise<Json> =>
  (await (await fetch(url, { headers: auth })).json()) as Json;

t.test('two nodes creating items in one project at once never hand out one key twice', async (t) => {
  const nats = await startNatsServer({ t });
  const a = await startFleetNode(t, 'node-a', nats.url, { extra: nativeBackends });
  const b = await startFleetNode(t, 'node-b', nats.url, { extra: nativeBackends });
  await applyNativeWork(t, [a.url, b.url], nativeWorkCompany(), 'work', 60_000);

  const perNode = 15;
  const create = async (url: string, i: number): Promise<Json> => {
    const res = await fetch(`${url}/work`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ project: 'ENG', title: `item ${i}`, op_id: `op-${i}` }),
    });
    const body = (await res.json()) as Json;
    if (res.status !== 201) throw new Error(`create ${i}: ${res.status} ${JSON.stringify(body)}`);
    return body;
  };
  const answers = await Promise.all(
    Array.from({ length: perNode * 2 }, (_, i) => create(i % 2 === 0 ? a.url : b.url, i)),
  );
  const keys = answers.map((x) => String(x['key']));
  t.equal(new Set(keys).size, keys.length, 'no key handed out twice');
  t.same(
    [...keys].sort((x, y) => Number(x.split('-')[1]) - Number(y.split('-')[1])),
    Array.from({ length: perNode * 2 }, (_, i) => `ENG-${i + 1}`),
    'the counter skipped nothing',
  );

  // A retry through the other node answers the first outcome.
  const first = answers[0]!;
  const retry = await fetch(`${b.url}/work`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ project: 'ENG', title: 'again', op_id: 'op-0' }),
  });
  const retried = (await retry.json()) as Json;
  t.equal(retried['outcome'], 'repeated');
  t.equal(retried['key'], first['key']);

  const listing = async (url: string) =>
    ((await get(`${url}/work?project=ENG&limit=200`))['items'] as Json[]).map(
      (i) => `${String(i['key'])}:${String(i['title'])}`,
    );
  const onA = await until(
    () => listing(a.url),
    (l) => l.length === perNode * 2,
    60_000,
  );
  const onB = await until(
    () => listing(b.url),
    (l) => l.length === perNode * 2,
    60_000,
  );
  t.same(onB, onA, 'both nodes read the same items');

  // Pages: racing writers through both nodes, decided by log order, the same on every node.
  const call = async (url: string, method: string, path: string, body: Json) => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, json: (await res.json()) as Json };
  };
  const created = await Promise.all(
    [a, b].map((n, i) =>
      call(n.url, 'POST', '/pages', {
        container: 'ENG',
        title: 'Runbook',
        body: `from ${i}`,
        op_id: `p-${i}`,
      }),
    ),
  );
  t.same(created.map((r) => r.status).sort(), [201, 409], 'one create of the title wins');
  t.equal(created.find((r) => r.status === 409)?.json['error'], 'page_title_taken');
  const page = created.find((r) => r.status === 201)!.json;
  const id = String(page['page_id']);
  const edits = await Promise.all(
    [a, b].map((n, i) =>
      call(n.url, 'PATCH', `/pages/${id}`, { body: `edit ${i}`, base_version: 1, op_id: `e-${i}` }),
    ),
  );
  t.same(edits.map((r) => r.status).sort(), [200, 409], 'one edit of version 1 wins');
  t.equal(edits.find((r) => r.status === 409)?.json['error'], 'page_conflict');
  const won = edits.findIndex((r) => r.status === 200);
  for (const node of [a, b]) {
    const read = await until(
      () => get(`${node.url}/pages/${id}`),
      (p) => p['version'] === 2,
      60_000,
    );
    t.equal(read['body'], `edit ${won}`, `${node === a ? 'node a' : 'node b'} reads the winning edit`);
  }
});
