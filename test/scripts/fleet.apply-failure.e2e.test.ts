/**
 * An activation one node cannot apply (spec "Node configuration state" and "Revision activation"): two
 * `svc serve` nodes on one nats-server, the second without the key the first seals revisions under. The
 * sealed revision stays active in the store; the first node applies it; the second keeps its prior
 * revision, announces `svc.config.revision_applied` with status `failed` and its `error` (recorded as a
 * failed `ConfigRevisionApplied` event too), and reads `stuck` (health status, posture, and `/ready` 503 on
 * an ingress node).
 */
import t from 'tap';
import { ensureCatalogue, openBus, Streams, Subjects } from '../../bus/index.js';
import { RevisionApplied } from '../../schema/config.js';
import { startFleetNode, until, type FleetNode } from '../harness/fleet-node.js';
import { startNatsServer } from '../harness/nats-server.js';
import { TOKEN } from '../harness/serve-node.js';

type Json = Record<string, unknown>;
const dec = new TextDecoder();
const KEYRING = `secrets: {active_key_id: k1, keys: [{id: k1, material: ${Buffer.alloc(32, 7).toString('base64')}}]}`;

async function put(node: FleetNode, mission: string): Promise<string> {
  const res = await fetch(`${node.url}/config`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'x-summary': mission },
    body: JSON.stringify({ name: 'Acme', mission, roles: [{ name: 'Ada' }] }),
  });
  const body = (await res.json()) as Json;
  if (res.status !== 201) throw new Error(`PUT answered ${res.status}: ${JSON.stringify(body)}`);
  return String(body['revision_id']);
}

const health = async (node: FleetNode): Promise<Json> =>
  (await (await fetch(`${node.url}/health`)).json()) as Json;

t.test(
  'a node that cannot open the activated revision keeps its prior one, announces the failure and reads stuck',
  async (t) => {
    const nats = await startNatsServer({ t });
    const sealing = await startFleetNode(t, 'node-sealing', nats.url, { extra: KEYRING });
    const plain = await startFleetNode(t, 'node-plain', nats.url);
    const bus = await openBus({ type: 'jetstream', url: nats.url });
    t.teardown(() => bus.close());
    await ensureCatalogue(bus);
    const applied = async (): Promise<RevisionApplied[]> => {
      const out: RevisionApplied[] = [];
      for await (const msg of bus.replay(Streams.Config, { subject: Subjects.configRevisionApplied }))
        out.push(RevisionApplied.parse(JSON.parse(dec.decode(msg.data))));
      return out;
    };

    // Written where no keyring seals it: both nodes apply it.
    const first = await put(plain, 'plain');
    for (const node of [sealing, plain])
      await until(
        () => health(node),
        (h) => h['status'] === 'ok' && h['applied_epoch'] === 1,
        20_000,
      );

    // Written where the keyring seals it: the node without the key cannot apply it.
    const second = await put(sealing, 'sealed');
    const rows = await until(applied, (r) => r.filter((a) => a.epoch === 2).length >= 2, 20_000);
    t.match(
      rows.filter((r) => r.epoch === 2).sort((a, b) => a.node.localeCompare(b.node)),
      [
        {
          node: 'node-plain',
          revision_id: second,
          status: 'failed',
          posture: 'stuck',
          applied_subsystems: [],
          error: /./,
        },
        { node: 'node-sealing', revision_id: second, status: 'applied' },
      ],
    );
    // The event history records the failure too (published after the announcement): `failed` set.
    const failedRecord = async (): Promise<Json | undefined> => {
      for await (const msg of bus.replay(Streams.Events, {
        subject: Subjects.event('ConfigRevisionApplied'),
      })) {
        const e = JSON.parse(dec.decode(msg.data)) as Json;
        const p = e['payload'] as Json;
        if (p['node'] === 'node-plain' && p['epoch'] === 2) return e;
      }
      return undefined;
    };
    t.match(
      await until(failedRecord, (e) => e !== undefined, 10_000),
      { category: 'system', failed: true, payload: { status: 'failed', revision_id: second, error: /./ } },
      'ConfigRevisionApplied records the failed apply with its error',
    );
    const stuck = await until(
      () => health(plain),
      (h) => h['status'] === 'stuck',
      10_000,
    );
    t.match(stuck, { posture: 'stuck', applied_epoch: 1, configured: true });
    const ready = await fetch(`${plain.url}/ready`);
    t.equal(ready.status, 503);
    t.match(await ready.json(), { ready: false, reason: 'stuck' });
    t.match(await health(sealing), { status: 'ok', applied_epoch: 2 });

    // The revision stays the active one in the store.
    const revisions = (await (
      await fetch(`${sealing.url}/config/revisions`, { headers: { authorization: `Bearer ${TOKEN}` } })
    ).json()) as { revisions: Json[] };
    t.same(
      revisions.revisions.filter((r) => r['is_active'] === true).map((r) => r['revision_id']),
      [second],
    );
    t.ok(
      revisions.revisions.some((r) => r['revision_id'] === first && r['is_active'] === false),
      'the prior revision is stored, inactive',
    );
  },
);
