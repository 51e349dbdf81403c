/**
 * Revision activation across two `svc serve` nodes on one nats-server (spec "Revision activation"): a write
 * whose compare-and-set succeeds becomes active, deactivates its parent, advances the epoch, is announced
 * on `svc.config.revision_activated` and applied by every node (each announcing
 * `svc.config.revision_applied`); of two writes racing from both nodes on the same parent, the loser is
 * stored inactive, answered 409 `revision_advanced` naming it, and both nodes keep serving the winner.
 */
import t from 'tap';
import { ensureCatalogue, openBus, Streams, Subjects, type Bus } from '../../bus/index.js';
import { ActivePointer, RevisionApplied } from '../../schema/config.js';
import { startFleetNode, until, type FleetNode } from '../harness/fleet-node.js';
import { startNatsServer } from '../harness/nats-server.js';
import { TOKEN } from '../harness/serve-node.js';

type Json = Record<string, unknown>;
const dec = new TextDecoder();

async function write(
  node: FleetNode,
  name: string,
  ifMatch?: string,
): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${node.url}/config`, {
    method: 'PUT',
    headers: {
      authorization: `Bearer ${TOKEN}`,
      'content-type': 'application/json',
      'x-summary': name,
      ...(ifMatch ? { 'if-match': `"${ifMatch}"` } : {}),
    },
    body: JSON.stringify({ name: 'Acme', mission: name, roles: [{ name: 'Ada' }] }),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

async function records<T>(bus: Bus, subject: string, parse: (v: unknown) => T): Promise<T[]> {
  const out: T[] = [];
  for await (const msg of bus.replay(Streams.Config, { subject }))
    out.push(parse(JSON.parse(dec.decode(msg.data))));
  return out;
}

const health = async (node: FleetNode): Promise<Json> =>
  (await (await fetch(`${node.url}/health`)).json()) as Json;
const etag = async (node: FleetNode): Promise<string | null> =>
  (await fetch(`${node.url}/config`, { headers: { authorization: `Bearer ${TOKEN}` } })).headers.get('etag');

t.test(
  'an activation advances the epoch, deactivates its parent and is applied by every node; a lost race is stored inactive',
  async (t) => {
    const nats = await startNatsServer({ t });
    const a = await startFleetNode(t, 'node-a', nats.url);
    const b = await startFleetNode(t, 'node-b', nats.url);
    const bus = await openBus({ type: 'jetstream', url: nats.url });
    t.teardown(() => bus.close());
    await ensureCatalogue(bus);
    const applied = (epoch: number) =>
      until(
        () => records(bus, Subjects.configRevisionApplied, (v) => RevisionApplied.parse(v)),
        (rows) => rows.filter((r) => r.epoch === epoch).length >= 2,
        20_000,
      );

    const first = await write(a, 'first');
    t.equal(first.status, 201);
    const firstId = String(first.body['revision_id']);
    const second = await write(b, 'second', firstId);
    t.equal(second.status, 201, 'written on the other node, on the active parent');
    const secondId = String(second.body['revision_id']);
    t.equal(second.body['epoch'], 2, 'the epoch advances');

    const rows = await applied(2);
    t.same(
      rows
        .filter((r) => r.epoch === 2)
        .map((r) => [r.node, r.revision_id, r.status])
        .sort(),
      [
        ['node-a', secondId, 'applied'],
        ['node-b', secondId, 'applied'],
      ],
      'every node applies the activation and says so',
    );
    const activated = await records(bus, Subjects.configRevisionActivated, (v) =>
      ActivePointer.pick({ revision_id: true, parent_revision_id: true, epoch: true }).parse(v),
    );
    t.same(
      activated.map((p) => [p.epoch, p.revision_id, p.parent_revision_id]),
      [
        [1, firstId, null],
        [2, secondId, firstId],
      ],
      'each activation is announced with its parent and epoch',
    );
    for (const node of [a, b]) {
      t.match(
        await until(
          () => health(node),
          (h) => h['applied_epoch'] === 2,
          10_000,
        ),
        { status: 'ok' },
      );
      const listed = await fetch(`${node.url}/config/revisions`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      const revisions = ((await listed.json()) as { revisions: Json[] }).revisions;
      t.same(
        revisions.filter((r) => r['is_active'] === true).map((r) => r['revision_id']),
        [secondId],
        'the parent is deactivated: one active revision',
      );
    }

    // Two writers race on the same parent, one per node.
    const [x, y] = await Promise.all([write(a, 'race-a', secondId), write(b, 'race-b', secondId)]);
    const winner = [x, y].find((w) => w.status === 201);
    const loser = [x, y].find((w) => w.status === 409);
    t.ok(winner && loser, `one write wins, one answers 409 (${x.status}, ${y.status})`);
    t.equal(loser?.body['error'], 'revision_advanced');
    const storedId = String(loser?.body['stored_revision_id']);
    const winnerId = String(winner?.body['revision_id']);
    await applied(3);
    for (const node of [a, b]) {
      t.equal(await etag(node), `"${winnerId}"`, 'the node serves the winner');
      const stored = await fetch(`${node.url}/config/revisions/${storedId}`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      t.match(
        await stored.json(),
        { revision_id: storedId, is_active: false },
        'the loser is stored inactive',
      );
    }
    const epochs = (await records(bus, Subjects.configRevisionActivated, (v) => ActivePointer.parse(v))).map(
      (p) => p.epoch,
    );
    t.same(epochs, [1, 2, 3], 'the lost write activated nothing');
  },
);
