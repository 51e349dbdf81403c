/**
 * The scheduler duty fails over on the clock operators configure (`node.seat_lease_seconds`), as the
 * seats do: two `svc serve` children on one nats-server with a 3 s lease. The node holding the duty is
 * killed -9; its peer takes the duty (a new epoch) within the lease, and `svc fleet remove` of the dead
 * node goes through without force once its seats and duty ran out, not 30 s later. A holder paused
 * (SIGSTOP) past the lease fences itself on resuming: it logs the fence, and the duty stays with its
 * peer under the newer epoch.
 */
import t, { type Test } from 'tap';
import type { FleetAnswer } from '../../schema/index.js';
import { startFleetNode, storeFleetCompany, until, type FleetNode } from '../harness/fleet-node.js';
import { startNatsServer } from '../harness/nats-server.js';
import { TOKEN } from '../harness/serve-node.js';

const leaseSeconds = 3;
const auth = { authorization: `Bearer ${TOKEN}` };

const fleetOf = async (node: FleetNode): Promise<FleetAnswer> =>
  (await (await fetch(`${node.url}/fleet`, { headers: auth })).json()) as FleetAnswer;

/** node-a (first, so it takes the duty) and node-b, both with the company applied. */
async function pair(t: Test): Promise<{ a: FleetNode; b: FleetNode }> {
  const nats = await startNatsServer({ t });
  const a = await startFleetNode(t, 'node-a', nats.url, { leaseSeconds });
  await storeFleetCompany(t, a);
  const b = await startFleetNode(t, 'node-b', nats.url, { leaseSeconds });
  await b.run.waitForLog((l) => l.msg === 'config applied');
  const fleet = await until(
    () => fleetOf(b),
    (f) => f.nodes.length === 2 && f.duties['scheduler']?.node === 'node-a',
  );
  const duty = fleet.duties['scheduler']!;
  const ttl = new Date(duty.expires_at).getTime() - Date.parse(fleet.read_at);
  t.ok(ttl <= leaseSeconds * 1000, `the duty lease binds for the configured lease (${ttl} ms left)`);
  return { a, b };
}

t.test(
  'a killed duty holder: its peer takes the duty within the lease, and its removal goes through',
  async (t) => {
    const { a, b } = await pair(t);
    const before = (await fleetOf(b)).duties['scheduler']!.epoch;
    a.run.kill('SIGKILL');
    await a.run.exited;
    const killedAt = Date.now();

    const moved = await until(
      () => fleetOf(b),
      (f) => f.duties['scheduler']?.node === 'node-b',
      { timeoutMs: 40_000 },
    );
    const tookS = (Date.now() - killedAt) / 1000;
    t.ok(tookS <= leaseSeconds + 2, `the duty moved within the lease (${tookS} s)`);
    t.ok(moved.duties['scheduler']!.epoch > before, 'under a new epoch');

    // Once its seat and duty leases ran out, an operator's removal needs no force.
    const removed = await until(
      async () => {
        const res = await fetch(`${b.url}/fleet/broker/remove/node-a?confirm=node-a`, {
          method: 'POST',
          headers: auth,
        });
        return { status: res.status, body: await res.json() };
      },
      (r) => r.status !== 409,
      { timeoutMs: 40_000 },
    );
    const removedS = (Date.now() - killedAt) / 1000;
    t.equal(removed.status, 200, JSON.stringify(removed.body));
    t.ok(removedS <= leaseSeconds + 2.5, `removable within the lease (${removedS} s)`);
    t.match(removed.body, { removed: 'node-a', forced: false, leases: [] });
  },
);

t.test('a duty holder paused past the lease fences itself and the duty stays with its peer', async (t) => {
  const { a, b } = await pair(t);
  const before = (await fleetOf(b)).duties['scheduler']!.epoch;
  a.run.kill('SIGSTOP');
  t.teardown(() => a.run.kill('SIGCONT'));
  const moved = await until(
    () => fleetOf(b),
    (f) => f.duties['scheduler']?.node === 'node-b',
    { timeoutMs: 40_000 },
  );
  const epoch = moved.duties['scheduler']!.epoch;
  t.ok(epoch > before, 'the peer holds a newer epoch');
  const seen = a.run.lines.length;
  a.run.kill('SIGCONT');
  const fenced = await a.run.waitForLog((l) => l.msg.startsWith('scheduler duty fenced'));
  t.match(fenced, { epoch: before }, 'the resumed node fences the epoch it held');
  const after = a.run.lines.slice(seen);
  t.notOk(
    after.some((l) =>
      ['schedule fired', 'missed firing recorded, not caught up', 'schedule firing not delivered'].includes(
        l.msg,
      ),
    ),
    'the resumed node fires nothing',
  );
  // It renews no more: the duty stays with the peer's epoch.
  const later = await until(
    () => fleetOf(b),
    (f) => f.nodes.length === 2,
  );
  t.same([later.duties['scheduler']?.node, later.duties['scheduler']?.epoch], ['node-b', epoch]);
});
