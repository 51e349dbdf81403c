/**
 * Scatter reads across processes: two `svc serve` children on one nats-server. A per-node fact (webhook
 * arrivals, tool servers) asked of one node answers for both, and `coverage` names every live node;
 * a node that died is named unanswered until its presence expires, and then no more.
 */
import t, { type Test } from 'tap';
import { startFleetNode, type FleetNode } from '../harness/fleet-node.js';
import { startNatsServer } from '../harness/nats-server.js';
import { TOKEN } from '../harness/serve-node.js';

interface Node extends FleetNode {
  get(path: string): Promise<Record<string, unknown>>;
}

async function startNode(t: Test, id: string, natsUrl: string): Promise<Node> {
  const node = await startFleetNode(t, id, natsUrl);
  return {
    ...node,
    get: async (path) =>
      (await (
        await fetch(`${node.url}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } })
      ).json()) as Record<string, unknown>,
  };
}

type Coverage = { nodes: { id: string; answered: boolean; error?: string }[]; complete: boolean };
const coverageOf = (answer: Record<string, unknown>): Coverage => answer['coverage'] as Coverage;
const trackerB = (answer: Record<string, unknown>) =>
  (answer['surfaces'] as { surface: string; arrivals: { not_configured: number } }[]).find(
    (s) => s.surface === 'tracker-b',
  )!;

/** Asks until `test` holds (the fleet view follows presence records as they come and go). */
async function until(node: Node, path: string, test: (answer: Record<string, unknown>) => boolean) {
  for (;;) {
    const answer = await node.get(path);
    if (test(answer)) return answer;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

t.test(
  'a per-node fact asked of one node answers for the fleet; coverage follows the live roster',
  async (t) => {
    const nats = await startNatsServer({ t });
    const a = await startNode(t, 'node-a', nats.url);
    const b = await startNode(t, 'node-b', nats.url);
    const both = (answer: Record<string, unknown>) => coverageOf(answer).nodes.length === 2;
    // node-b started second: its seed read at start asked node-a too.
    const health = (await (await fetch(`${b.url}/health`)).json()) as { seeded_from: Coverage };
    t.same(
      health.seeded_from,
      {
        nodes: [
          { id: 'node-b', answered: true },
          { id: 'node-a', answered: true },
        ],
        complete: true,
      },
      'seeded from every live node',
    );

    const put = await fetch(`${a.url}/config`, {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${TOKEN}`,
        'content-type': 'application/json',
        'x-summary': 'scatter',
      },
      body: JSON.stringify({ name: 'Acme', roles: [{ name: 'Ada' }] }),
    });
    t.equal(put.status, 201);
    await b.run.waitForLog((line) => line.msg === 'config applied');
    // A delivery for a surface with no secret is answered 503 and counted on the node that got it: node-b.
    const refused = await fetch(`${b.url}/webhooks/tracker-b`, { method: 'POST', body: '{}' });
    t.equal(refused.status, 503);
    const integrations = await until(a, '/integrations', both);
    t.same(coverageOf(integrations), {
      nodes: [
        { id: 'node-a', answered: true },
        { id: 'node-b', answered: true },
      ],
      complete: true,
    });
    t.equal(trackerB(integrations).arrivals.not_configured, 1, "node-b's arrival, read through node-a");

    const servers = await a.get('/mcp-servers');
    t.same(
      (servers['nodes'] as { node: string }[]).map((n) => n.node),
      ['node-a', 'node-b'],
      'each node lists its own tool servers',
    );
    t.equal(coverageOf(servers).complete, true);

    // node-b dies: until its presence expires it is named, unanswered; then the roster no longer holds it.
    b.run.kill('SIGKILL');
    await b.run.exited;
    const partial = await until(a, '/integrations', (answer) => coverageOf(answer).complete === false);
    t.match(coverageOf(partial).nodes[1], { id: 'node-b', answered: false, error: /no responder|no answer/ });
    const alone = await until(a, '/integrations', (answer) => coverageOf(answer).nodes.length === 1);
    t.same(coverageOf(alone), { nodes: [{ id: 'node-a', answered: true }], complete: true });
  },
);
