import t from 'tap';
import { startNode, TOKEN } from '../harness/serve-node.js';

t.test(
  'svc serve spawns a host per agent seat on apply, never one for a human seat, and serves pause',
  async (t) => {
    const node = await startNode(t);
    const put = await fetch(`${node.url}/config`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'x-summary': 'seats' },
      body: JSON.stringify({
        name: 'Acme',
        roles: [
          { name: 'Ada' },
          { name: 'Bob' },
          { name: 'Hu', kind: 'human', contact: { operator_id: 'ops' } },
        ],
      }),
    });
    t.equal(put.status, 201);
    await node.run.waitForLog((l) => l.msg === 'config applied');
    const spawned = node.run.lines.filter((l) => l.msg === 'seat spawned').map((l) => l['seat']);
    t.same(spawned.sort(), ['ada', 'bob']);

    const pause = await fetch(`${node.url}/agents/bob/pause`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ reason: 'maintenance' }),
    });
    t.equal(pause.status, 200);
    t.match(await pause.json(), {
      id: 'bob',
      paused: { by: 'ops', reason: 'maintenance', stop_running: false },
    });
    const human = await fetch(`${node.url}/agents/hu/pause`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    t.equal(human.status, 404);
  },
);
