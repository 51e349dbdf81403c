/**
 * Fleet benchmark (not a test): three nats-servers on loopback (one cluster, `providers.queue.replicas: 3`)
 * and three `svc serve` children, with a 6 s seat lease. Prints:
 *  1. re-placement: seconds from kill -9 of the node holding every seat until the peers' `/health` list
 *     them all, against the lease (the target: within the lease plus one renewal tick);
 *  2. write availability: the longest gap between acknowledged config writes (an `If-Match` PUT loop through
 *     one node) while the server leading `SVC_CONFIG` is killed, against the longest gap of the same loop
 *     with no failure, measured in the same run (the target: writes again within 10 s);
 *  3. scatter reads: p50/p99 of `GET /integrations` answered by three nodes, against the same node asked
 *     while it was alone (same run).
 *
 * Run (from the repository root, after `npm run build`): node --import=tsx scripts/bench/fleet.ts [--json]
 * Options (environment): BENCH_READS (300), BENCH_WRITE_SECONDS (6 per phase).
 * Loopback only; every process it starts is stopped by pid when it ends.
 */
import { streamLeader } from '../../test/harness/nats-leader.js';
import { startNatsCluster } from '../../test/harness/nats-server.js';
import { auth, quantile, startServe, type ServedNode } from './node.js';
import { report, row } from './table.js';

const reads = Number(process.env['BENCH_READS'] ?? 300);
const writeSeconds = Number(process.env['BENCH_WRITE_SECONDS'] ?? 6);
const leaseSeconds = 6;
const seats = ['Ada', 'Bob', 'Cy', 'Dee'];

interface Node {
  readonly id: string;
  readonly url: string;
  readonly run: ServedNode['run'];
}

const served: ServedNode[] = [];

async function startNode(id: string, natsUrls: string): Promise<Node> {
  const node = await startServe({
    queue: `type: jetstream, url: "${natsUrls}", replicas: 3`,
    store: false,
    extra: [`node: {id: ${id}, seat_lease_seconds: ${leaseSeconds}}`],
  });
  served.push(node);
  return { id, url: node.url, run: node.run };
}

const held = async (node: Node): Promise<string[]> => {
  try {
    const res = await fetch(`${node.url}/health`, { signal: AbortSignal.timeout(500) });
    return ((await res.json()) as { seats?: string[] }).seats ?? [];
  } catch {
    return [];
  }
};

async function timedReads(node: Node): Promise<{ p50: number; p99: number }> {
  const ms: number[] = [];
  for (let i = 0; i < reads; i += 1) {
    const start = performance.now();
    const res = await fetch(`${node.url}/integrations`, { headers: auth });
    await res.arrayBuffer();
    ms.push(performance.now() - start);
  }
  ms.sort((a, b) => a - b);
  return { p50: quantile(ms, 0.5), p99: quantile(ms, 0.99) };
}

/** PUTs the company with `If-Match` in a loop for `seconds`; the longest gap between acknowledged writes. */
async function writeLoop(node: Node, seconds: number, during?: () => Promise<void>): Promise<number> {
  const end = Date.now() + seconds * 1000;
  let last = Date.now();
  let longest = 0;
  let n = 0;
  const fault = during
    ? (async () => {
        await new Promise((resolve) => setTimeout(resolve, 1000));
        await during();
      })()
    : Promise.resolve();
  while (Date.now() < end) {
    n += 1;
    try {
      const current = await fetch(`${node.url}/config`, { headers: auth, signal: AbortSignal.timeout(5000) });
      const etag = current.headers.get('etag') ?? '*';
      const res = await fetch(`${node.url}/config`, {
        method: 'PUT',
        headers: { ...auth, 'content-type': 'application/json', 'if-match': etag, 'x-summary': `w${n}` },
        body: JSON.stringify({ name: 'Acme', mission: `write ${n}`, roles: seats.map((name) => ({ name })) }),
        signal: AbortSignal.timeout(15_000),
      });
      if (res.status === 201) {
        const now = Date.now();
        longest = Math.max(longest, now - last);
        last = now;
      }
    } catch {
      // an unanswered write is a gap, not a stop
    }
  }
  await fault;
  return Math.max(longest, Date.now() - last) / 1000;
}

async function main(): Promise<void> {
  const cluster = await startNatsCluster(3);
  const urls = cluster.urls.join(',');
  try {
    // 3. scatter baseline: one node alone.
    const a = await startNode('node-a', urls);
    const put = await fetch(`${a.url}/config`, {
      method: 'PUT',
      headers: { ...auth, 'content-type': 'application/json', 'x-summary': 'bench' },
      body: JSON.stringify({ name: 'Acme', roles: seats.map((name) => ({ name })) }),
    });
    if (put.status !== 201) throw new Error(`config write answered ${put.status}`);
    await a.run.waitForLog((l) => l.msg === 'config applied');
    await timedReads(a); // warm-up
    const alone = await timedReads(a);
    const b = await startNode('node-b', urls);
    const c = await startNode('node-c', urls);
    for (;;) {
      const answer = (await (await fetch(`${a.url}/integrations`, { headers: auth })).json()) as {
        coverage: { nodes: unknown[] };
      };
      if (answer.coverage.nodes.length === 3) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const three = await timedReads(a);

    // 2. write availability: baseline, then the SVC_CONFIG leader killed mid-loop.
    const quiet = await writeLoop(b, writeSeconds);
    const leader = await streamLeader(cluster, 'SVC_CONFIG', [0, 1, 2]);
    const failover = await writeLoop(b, writeSeconds * 2, () => {
      process.kill(cluster.servers[leader]!.pid, 'SIGKILL');
      return Promise.resolve();
    });

    // 1. re-placement: kill -9 the node holding the most seats; wait until the others hold every seat.
    const handles = seats.map((s) => s.toLowerCase());
    const nodes = [a, b, c];
    const counts = await Promise.all(nodes.map(held));
    let victim = 0;
    counts.forEach((list, i) => {
      if (list.length > counts[victim]!.length) victim = i;
    });
    const onVictim = counts[victim]!;
    const peers = nodes.filter((_, i) => i !== victim);
    const killedAt = Date.now();
    nodes[victim]!.run.kill('SIGKILL');
    for (;;) {
      const placed = new Set((await Promise.all(peers.map(held))).flat());
      if (handles.every((h) => placed.has(h))) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const replaced = (Date.now() - killedAt) / 1000;

    console.log(`fleet benchmark: 3 nats-servers (R3), 3 svc serve nodes, lease ${leaseSeconds} s`);
    console.log(
      `re-placement after kill -9 of a node holding ${onVictim.length} seats: ${replaced.toFixed(2)} s ` +
        `(lease ${leaseSeconds} s + tick ${(leaseSeconds / 3).toFixed(0)} s; ratio to lease ${(replaced / leaseSeconds).toFixed(2)})`,
    );
    console.log(
      `write availability: longest gap ${failover.toFixed(2)} s with the SVC_CONFIG leader (n${leader + 1}) killed, ` +
        `${quiet.toFixed(2)} s without (ratio ${(failover / Math.max(quiet, 0.001)).toFixed(1)})`,
    );
    console.log(
      `scatter read GET /integrations: 3 nodes p50 ${three.p50.toFixed(1)} ms p99 ${three.p99.toFixed(1)} ms; ` +
        `alone p50 ${alone.p50.toFixed(1)} ms p99 ${alone.p99.toFixed(1)} ms (p99 ratio ${(three.p99 / alone.p99).toFixed(2)})`,
    );
    const tick = leaseSeconds / 3;
    report([
      row(
        'fleet',
        're-placement after kill -9 (vs the lease)',
        replaced,
        's',
        leaseSeconds,
        `<= ${leaseSeconds + tick} s`,
      ),
      row('fleet', 'longest write gap, SVC_CONFIG leader killed (vs none)', failover, 's', quiet, '< 10 s'),
      row('fleet', 'GET /integrations p99, 3 nodes (vs alone)', three.p99, 'ms', alone.p99),
    ]);
  } finally {
    for (const node of served) node.run.kill('SIGKILL');
    await Promise.all(served.map((node) => node.stop()));
    await cluster.stop();
  }
}

await main();
