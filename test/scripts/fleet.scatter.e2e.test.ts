/**
 * Scatter reads across processes: two `svc serve` children on one nats-server. A per-node fact (webhook
 * arrivals, tool servers) asked of one node answers for both, and `coverage` names every live node;
 * a node that died is named unanswered until its presence expires, and then no more. An agent's
 * `llm_history` a node's boot seed left out is answered from its peer, also when that answer is larger than
 * one bus message; a silent peer leaves it incomplete.
 */
import t, { type Test } from 'tap';
import { openBus, Subjects } from '../../bus/index.js';
import { startFleetNode, type FleetNode } from '../harness/fleet-node.js';
import { startNatsServer } from '../harness/nats-server.js';
import { TOKEN } from '../harness/serve-node.js';
import { dashboard } from '../http/fixtures/events-node.js';
import { event, phaseCompleted } from '../projections/fixtures/readmodels.js';
import { until as poll } from '../harness/until.js';

interface Node extends FleetNode {
  get(path: string): Promise<Record<string, unknown>>;
}

async function startNode(
  t: Test,
  id: string,
  natsUrl: string,
  opts: { leaseSeconds?: number } = {},
): Promise<Node> {
  const node = await startFleetNode(t, id, natsUrl, opts);
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
const until = (node: Node, path: string, test: (answer: Record<string, unknown>) => boolean) =>
  poll(() => node.get(path), test);

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

type AgentAnswer = { llm_history: { turn_id: string }[]; coverage: Coverage };
const turnsOf = (answer: Record<string, unknown>) =>
  (answer as unknown as AgentAnswer).llm_history.map((row) => row.turn_id);

/**
 * node-a with the seat ada and `turns` turns of it, one phase each, as the turn engine would record them
 * (node-a folds them live); then node-b, whose boot seed keeps the newest three turns of each seat, once
 * its fleet view holds node-a. Leases long enough that a stopped node stays on the roster while asked.
 */
async function adaOnTwoNodes(t: Test, turns: number, response?: (k: number) => string) {
  const nats = await startNatsServer({ t });
  const a = await startNode(t, 'node-a', nats.url, { leaseSeconds: 15 });
  const put = await fetch(`${a.url}/config`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'x-summary': 'ada' },
    body: JSON.stringify({ name: 'Acme', roles: [{ name: 'Ada', handle: 'ada' }] }),
  });
  t.equal(put.status, 201);
  await a.run.waitForLog((line) => line.msg === 'config applied');

  const bus = await openBus({ type: 'jetstream', url: nats.url });
  t.teardown(() => bus.close());
  const base = Date.now() - (turns + 5) * 60_000;
  for (let k = 1; k <= turns; k++) {
    const at = new Date(base + k * 60_000).toISOString();
    const extra = response ? { response: response(k) } : {};
    const done = event('agent_phase_completed', 'ada', phaseCompleted(`turn-${k}`, 'plan', at, extra), at);
    await bus.publish(Subjects.event(done.type), new TextEncoder().encode(JSON.stringify(done)), {
      msgId: done.id,
    });
  }
  await until(a, '/agents/ada', (answer) => turnsOf(answer).length === turns);

  const b = await startNode(t, 'node-b', nats.url, { leaseSeconds: 15 });
  // Once node-b's fleet view holds node-a (a question scattered since before), ask for ada.
  await until(b, '/integrations', (answer) => coverageOf(answer).nodes.length === 2);
  return { a, b };
}

t.test(
  "an agent's llm_history is joined from every live node; a silent peer leaves it incomplete",
  async (t) => {
    const { a, b } = await adaOnTwoNodes(t, 5);
    const everyTurn = ['turn-5', 'turn-4', 'turn-3', 'turn-2', 'turn-1'];
    const both = await b.get('/agents/ada');
    t.same(turnsOf(both), everyTurn, "node-b answers the turns its seed left out, from node-a's");
    t.same(coverageOf(both), {
      nodes: [
        { id: 'node-b', answered: true },
        { id: 'node-a', answered: true },
      ],
      complete: true,
    });
    t.same(turnsOf(await b.get('/query/agent?id=ada')), everyTurn, 'the query route asks the same');
    const d = await dashboard(`${b.url.replace('http', 'ws')}/ws/stream`, {
      authorization: `Bearer ${TOKEN}`,
    });
    t.teardown(() => d.client.close());
    await d.next((f) => f.kind === 'snapshot');
    d.client.send(JSON.stringify({ kind: 'query', id: 1, what: 'agent', params: { id: 'ada' } }));
    const result = await d.next((f) => f.kind === 'result' && f.data.id === 1);
    const asked = (result.data as { data: Record<string, unknown> }).data;
    t.same(turnsOf(asked), everyTurn, "the socket's query channel too");
    t.equal(coverageOf(asked).complete, true);

    // node-a stops answering (SIGSTOP) but stays on the roster: node-b answers alone, incomplete.
    a.run.kill('SIGSTOP');
    t.teardown(() => a.run.kill('SIGCONT'));
    const alone = await b.get('/agents/ada');
    t.same(turnsOf(alone), ['turn-5', 'turn-4', 'turn-3'], 'node-b alone has its seed');
    t.equal(coverageOf(alone).complete, false);
    t.match(coverageOf(alone).nodes, [
      { id: 'node-b', answered: true },
      { id: 'node-a', answered: false, error: /no answer within/ },
    ]);
    a.run.kill('SIGCONT');
  },
);

t.test(
  "an agent's 50 history rows near their cap, over one bus message from a peer, are read whole",
  async (t) => {
    // 64 Ki characters a row, some of two bytes: node-a's answer is over three bus messages of 1 MiB.
    const response = (k: number) => `turn-${k} é `.repeat(6_000).slice(0, 65_536);
    const { b } = await adaOnTwoNodes(t, 50, response);
    const answer = await b.get('/agents/ada');
    const rows = (answer as unknown as { llm_history: { turn_id: string; response: string }[] }).llm_history;
    t.same(
      rows.map((row) => row.turn_id),
      Array.from({ length: 50 }, (_, i) => `turn-${50 - i}`),
      "node-b answers the 47 turns its seed left out, from node-a's answer",
    );
    t.ok(
      rows.every((row) => row.response === response(Number(row.turn_id.slice(5)))),
      'every row whole',
    );
    t.same(coverageOf(answer), {
      nodes: [
        { id: 'node-b', answered: true },
        { id: 'node-a', answered: true },
      ],
      complete: true,
    });
  },
);
