/**
 * A node cut from NATS cannot vouch for its fleet view: its watch delivers nothing, so every peer's record
 * it holds looks expired one ttl after that peer's last renewal it saw — which can come before this node's
 * own record, as last delivered, expires (the peer renewed earlier in the same period). Two `svc serve`
 * children on one nats-server, node-a through a TCP proxy, a 3 s lease. The cut is made just after node-b's
 * view shows a fresh renewal of node-a (so node-b's last renewal node-a saw is older than node-a's own),
 * and node-a's `/fleet` and `/health` are asked every 50 ms until `/fleet` reads `complete: false`: no
 * answer before that may read a complete table without node-b, nor `/health` `nodes` 1, as node-b lives on.
 */
import t from 'tap';
import { startFleetNode, until } from '../harness/fleet-node.js';
import { startNatsServer } from '../harness/nats-server.js';
import { TOKEN } from '../harness/serve-node.js';
import { startTcpProxy } from '../harness/tcp-proxy.js';

interface FleetAnswer {
  readonly complete: boolean;
  readonly nodes: { id: string; renewed_at: string }[];
}

const auth = { authorization: `Bearer ${TOKEN}` };

async function fleetOf(url: string): Promise<FleetAnswer | null> {
  try {
    const res = await fetch(`${url}/fleet`, { headers: auth, signal: AbortSignal.timeout(250) });
    return (await res.json()) as FleetAnswer;
  } catch {
    return null;
  }
}

async function nodesOf(url: string): Promise<number | undefined | null> {
  try {
    const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(250) });
    return ((await res.json()) as { nodes?: number }).nodes;
  } catch {
    return null;
  }
}

t.test(
  'a node cut from NATS never reads a complete fleet without its live peer: it stops vouching first',
  async (t) => {
    const server = await startNatsServer({ t });
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: server.port }, { scheme: 'nats', t });
    const a = await startFleetNode(t, 'node-a', proxy.url);
    const b = await startFleetNode(t, 'node-b', server.url);
    const both = (f: FleetAnswer | null): boolean =>
      f !== null && f.complete && ['node-a', 'node-b'].every((id) => f.nodes.some((n) => n.id === id));
    await until(() => fleetOf(a.url), both);
    const renewedA = (f: FleetAnswer | null): string | undefined =>
      f?.nodes.find((n) => n.id === 'node-a')?.renewed_at;
    const seen = renewedA(await until(() => fleetOf(b.url), both));
    await until(
      () => fleetOf(b.url),
      (f) => renewedA(f) !== undefined && renewedA(f) !== seen,
      { everyMs: 20 },
    );
    proxy.blackhole();

    const wrong: string[] = [];
    const cutAt = Date.now();
    for (;;) {
      const [fleet, nodes] = await Promise.all([fleetOf(a.url), nodesOf(a.url)]);
      const at = ((Date.now() - cutAt) / 1000).toFixed(2);
      if (fleet?.complete === true && !fleet.nodes.some((n) => n.id === 'node-b'))
        wrong.push(`${at} s: /fleet complete with ${fleet.nodes.map((n) => n.id).join(', ')}`);
      if (nodes === 1) wrong.push(`${at} s: /health nodes 1`);
      if (fleet?.complete === false) break;
      if (Date.now() - cutAt > 10_000) {
        wrong.push('still complete 10 s after the cut');
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    t.same(wrong, [], 'node-a stops vouching for its view before a live peer looks gone in it');
    t.ok(both(await fleetOf(b.url)), 'node-b, on its link, reads both nodes throughout');

    proxy.restore();
    proxy.cut();
    await until(() => fleetOf(a.url), both);
    t.pass('node-a vouches for the table again once its link is back');
  },
);
