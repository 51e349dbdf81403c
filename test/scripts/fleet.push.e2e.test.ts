/**
 * The socket's `fleet` push: two `svc serve` children on one nats-server with a 3 s lease, and a raw
 * WebSocket opened on node-b without a token. When node-a dies (SIGKILL: nothing is deleted, its presence
 * and its seat lease run out) the socket is told twice over — once the node has left this node's view, once
 * its seat is held by node-b — each time by a `fleet` frame with data null (the fleet is guarded and the
 * socket anonymous, so the frame names no node), and `GET /fleet` read after the frame shows the change.
 */
import t, { type Test } from 'tap';
import { startFleetNode, storeFleetCompany, until, type FleetNode } from '../harness/fleet-node.js';
import { startNatsServer } from '../harness/nats-server.js';
import { TOKEN } from '../harness/serve-node.js';
import { rawWebSocket, type RawUpgrade } from '../harness/ws-raw.js';

interface Fleet {
  nodes: Array<{ id: string }>;
  seats: Record<string, { node: string; epoch: number }>;
  expired: Array<{ node: string }>;
}

const auth = { authorization: `Bearer ${TOKEN}` };

async function fleetOf(node: FleetNode): Promise<Fleet> {
  const res = await fetch(`${node.url}/fleet`, { headers: auth });
  return (await res.json()) as Fleet;
}

/** The next frame of `kind`, others skipped; fails after `ms`. */
async function nextOfKind(
  ws: RawUpgrade,
  kind: string,
  ms: number,
): Promise<{ kind: string; data: unknown }> {
  const deadline = Date.now() + ms;
  for (;;) {
    const left = deadline - Date.now();
    let timer: NodeJS.Timeout | undefined;
    const text = await Promise.race([
      ws.nextText(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no ${kind} frame within ${ms} ms`)), Math.max(1, left));
      }),
    ]).finally(() => clearTimeout(timer));
    const frame = JSON.parse(text) as { kind: string; data: unknown };
    if (frame.kind === kind) return frame;
  }
}

/** A `fleet` frame (its data null), then `GET /fleet` read after it. */
async function pushed(t: Test, ws: RawUpgrade, node: FleetNode): Promise<Fleet> {
  const frame = await nextOfKind(ws, 'fleet', 15_000);
  t.equal(frame.data, null, 'the frame carries no fleet detail');
  return fleetOf(node);
}

t.test(
  'a node leaving and a seat changing holder are pushed as fleet frames to an anonymous socket',
  async (t) => {
    const nats = await startNatsServer({ t });
    const a = await startFleetNode(t, 'node-a', nats.url, { leaseSeconds: 3 });
    await storeFleetCompany(t, a);
    const b = await startFleetNode(t, 'node-b', nats.url, { leaseSeconds: 3 });
    const before = await until(
      () => fleetOf(b),
      (f) =>
        f.nodes.length === 2 &&
        Object.keys(f.seats).length === 1 &&
        Object.values(f.seats).every((s) => s.node === 'node-a'),
    );
    const seat = Object.keys(before.seats)[0] as string;

    const ws = await rawWebSocket(Number(new URL(b.url).port), '/ws/stream');
    t.teardown(() => ws.destroy());
    t.equal(ws.status, 101, 'the socket opens without a token');
    t.equal(JSON.parse(await ws.nextText()).kind, 'snapshot', 'the snapshot comes first');
    const anonymous = await fetch(`${b.url}/fleet`);
    t.equal(anonymous.status, 401, 'the same socket could not read the fleet over HTTP');

    a.run.kill('SIGKILL');
    await a.run.exited;
    // Each change is seen in a read that follows a frame; one frame may announce both.
    let left: Fleet | null = null;
    let moved: Fleet | null = null;
    while (left === null || moved === null) {
      const fleet = await pushed(t, ws, b);
      if (!fleet.nodes.some((n) => n.id === 'node-a')) left ??= fleet;
      if (fleet.seats[seat]?.node === 'node-b') moved ??= fleet;
    }
    t.ok(
      left.expired.some((e) => e.node === 'node-a'),
      'a fleet frame came once node-a left the live nodes (its presence ran out)',
    );
    t.ok(
      (moved.seats[seat]?.epoch ?? 0) > (before.seats[seat]?.epoch ?? 0),
      'a fleet frame came once the seat was held by node-b, under a newer epoch',
    );
  },
);
