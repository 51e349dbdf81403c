/**
 * ops/metrics.md: `/metrics` is served by every node with the `ingress` role, each for itself; a node
 * without it serves only the probes (and `/mcp/{token}`) on `api.port`, so its `/metrics` answers 404 to an
 * operator and 401 without a token.
 */
import t from 'tap';
import { startFleetNode } from '../harness/fleet-node.js';
import { startNatsServer } from '../harness/nats-server.js';
import { TOKEN } from '../harness/serve-node.js';

t.test('a node without the ingress role answers /metrics 404, and 401 without a token', async (t) => {
  const nats = await startNatsServer({ t });
  const front = await startFleetNode(t, 'node-front', nats.url, { node: 'roles: [ingress, data]' });
  const seats = await startFleetNode(t, 'node-seats', nats.url, { node: 'roles: [seats]' });
  const auth = { authorization: `Bearer ${TOKEN}` };
  const scraped = await fetch(`${front.url}/metrics`, { headers: auth });
  t.equal(scraped.status, 200, 'the ingress node is scraped');
  t.match(await scraped.text(), /svc_tracing_spans_dropped_total\{node="node-front"\} 0/);
  const operator = await fetch(`${seats.url}/metrics`, { headers: auth });
  t.equal(operator.status, 404, 'the seats-only node serves no /metrics');
  t.match(await operator.json(), { error: 'no_route' });
  const anonymous = await fetch(`${seats.url}/metrics`);
  t.equal(anonymous.status, 401, 'and asks for a token first');
  await anonymous.arrayBuffer();
  t.equal((await fetch(`${seats.url}/health`)).status, 200, 'its probes are served');
});
