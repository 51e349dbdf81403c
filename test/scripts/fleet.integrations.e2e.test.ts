/**
 * Two `svc serve` children on one nats-server read the same integration records: webhook arrivals
 * taken by one node and a pass run through the other are counted and listed alike on both, and still
 * on the survivor once the node that took them is gone (its own fold, not a peer's answer).
 */
import { createHmac } from 'node:crypto';
import t from 'tap';
import { startFleetNode, type FleetNode } from '../harness/fleet-node.js';
import { startNatsServer } from '../harness/nats-server.js';
import { TOKEN } from '../harness/serve-node.js';

const SECRET = 'codehost-a-fleet-secret-0123';
const auth = { authorization: `Bearer ${TOKEN}` };

const get = async (node: FleetNode, path: string): Promise<Record<string, unknown>> =>
  (await (await fetch(`${node.url}${path}`, { headers: auth })).json()) as Record<string, unknown>;
const arrivals = async (node: FleetNode): Promise<Record<string, unknown>> =>
  (
    (await get(node, '/integrations'))['surfaces'] as Array<{
      surface: string;
      arrivals: Record<string, unknown>;
    }>
  ).find((s) => s.surface === 'codehost-a')!.arrivals;
const runIds = async (node: FleetNode): Promise<unknown[]> =>
  ((await get(node, '/setup/integrations/monitor/runs'))['runs'] as Array<{ id: string }>).map((r) => r.id);

t.test(
  'arrivals and passes read the same on every node of a fleet, and outlive the node that took them',
  async (t) => {
    const nats = await startNatsServer({ t });
    const a = await startFleetNode(t, 'node-a', nats.url);
    const b = await startFleetNode(t, 'node-b', nats.url);
    const put = await fetch(`${a.url}/config`, {
      method: 'PUT',
      headers: { ...auth, 'content-type': 'application/json', 'x-summary': 'fleet integrations' },
      body: JSON.stringify({
        name: 'Acme',
        integrations: { codehost_a: { webhook_secret: SECRET } },
        roles: [{ name: 'Ada' }, { name: 'Cy' }],
      }),
    });
    t.equal(put.status, 201, await put.text());
    await a.run.waitForLog((l) => l.msg === 'config applied');
    await b.run.waitForLog((l) => l.msg === 'config applied');

    const body = JSON.stringify({ action: 'assigned', issue: { number: 7, assignees: [{ login: 'cy' }] } });
    const deliver = (
      node: FleetNode,
      id: string,
      signature = createHmac('sha256', SECRET).update(body).digest('hex'),
    ) =>
      fetch(`${node.url}/webhooks/codehost-a`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-codehost-a-event': 'issues',
          'x-codehost-a-delivery': id,
          'x-codehost-a-signature-256': `sha256=${signature}`,
        },
        body,
      });
    t.equal((await deliver(b, 'd-1')).status, 200);
    t.equal((await deliver(b, 'd-2')).status, 200);
    t.equal((await deliver(a, 'd-2')).status, 200, 'a duplicate of what node-b took, through node-a');
    t.equal((await deliver(b, 'd-3', '0'.repeat(64))).status, 401);

    const check = await fetch(`${b.url}/setup/integrations/monitor/check`, { method: 'POST', headers: auth });
    t.equal(check.status, 200);

    const onA = await arrivals(a);
    t.match(onA, { accepted: 2, duplicates: 1, refused: 1 }, 'each arrival counted once, not once per node');
    t.same(await arrivals(b), onA, 'the same counts on both nodes');
    const runs = await runIds(b);
    t.equal(runs.length, 1);
    t.same(await runIds(a), runs, "node-b's pass is in node-a's history");

    b.run.kill('SIGKILL');
    await b.run.exited;
    t.same(await arrivals(a), onA, "node-b's arrivals still read on node-a once node-b is gone");
    t.same(await runIds(a), runs);
  },
);
