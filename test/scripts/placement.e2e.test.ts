import t, { type Test } from 'tap';
import { startNode, TOKEN, type ServedNode } from '../harness/serve-node.js';

const company = {
  name: 'Acme',
  roles: [{ name: 'Ada' }, { name: 'Bob' }, { name: 'Hu', kind: 'human', contact: { operator_id: 'ops' } }],
};

async function apply(t: Test, node: ServedNode): Promise<void> {
  const put = await fetch(`${node.url}/config`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'x-summary': 'seats' },
    body: JSON.stringify(company),
  });
  t.equal(put.status, 201);
  await node.run.waitForLog((l) => l.msg === 'config applied');
}

const get = async (node: ServedNode, path: string): Promise<unknown> =>
  (await fetch(`${node.url}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } })).json();

t.test('a seats node holds every agent seat: health lists them and /agents reads them placed', async (t) => {
  const node = await startNode(t);
  await apply(t, node);
  t.match(await get(node, '/health'), { seats: ['ada', 'bob'] });
  const rows = (await get(node, '/agents')) as {
    id: string;
    activity: string;
    stopped_reason: string | null;
  }[];
  t.same(
    rows.map((r) => [r.id, r.activity, r.stopped_reason]),
    [
      ['ada', 'idle', null],
      ['bob', 'idle', null],
    ],
  );
});

t.test('on a fleet without a seats node, /agents reads every agent seat stopped and unplaced', async (t) => {
  const node = await startNode(t, 'node: {roles: [ingress, data]}');
  await apply(t, node);
  t.match(await get(node, '/health'), { seats: [] });
  const rows = (await get(node, '/agents')) as {
    id: string;
    activity: string;
    stopped_reason: string | null;
  }[];
  t.same(
    rows.map((r) => [r.id, r.activity, r.stopped_reason]),
    [
      ['ada', 'stopped', 'unplaced'],
      ['bob', 'stopped', 'unplaced'],
    ],
  );
  t.notOk(
    node.run.lines.some((l) => l.msg === 'seat spawned'),
    'no seat host runs on a node without the seats role',
  );
});
