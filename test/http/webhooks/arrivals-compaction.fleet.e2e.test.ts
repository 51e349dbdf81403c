/**
 * The arrival compaction (ops/webhooks.md "Compaction") across a fleet of separate `svc serve` processes on one
 * nats-server, each compacting every second once 20 arrival records are due (Tier A `webhooks.compaction`).
 * Signed deliveries (unique ids, some sent again, some with a bad signature) go to both nodes at once on two
 * surfaces while they compact; mid-way node-a is killed with SIGKILL and served again from its own file and
 * store (its projection checkpoint older than the rollups since). Every node, and one started afterwards from
 * zero, counts exactly what the senders were answered; rollups took the arrival records' place and none they
 * sum is left. Node-a's senders pause before the kill and node-a is asked for its counts first, which appends
 * the refusals it counted: refusals a node counted in its last second are lost to a kill by design.
 */
import t from 'tap';
import { openBus, Streams, type Bus } from '../../../bus/index.js';
import { restartFleetNode, startFleetNode, until, type FleetNode } from '../../harness/fleet-node.js';
import { SCATTER_VERSION, scatterSubject } from '../../../http/scatter.js';
import { startNatsServer } from '../../harness/nats-server.js';
import { TOKEN } from '../../harness/serve-node.js';
import { SECRETS } from './fixtures/company.js';
import { sign_ } from './fixtures/signers.js';

const auth = { authorization: `Bearer ${TOKEN}` };
const COMPACTION = 'webhooks: {compaction: {threshold: 20, every_seconds: 1}}';
/** Deliveries in flight per node at once. */
const WORKERS = 6;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

interface Counts {
  accepted: number;
  duplicates: number;
  refused: number;
  not_configured: number;
}
type Tally = Record<Surface, Counts>;
type Surface = 'codehost-a' | 'codehost-b';

const SURFACES = {
  'codehost-a': {
    path: '/webhooks/codehost-a',
    body: (i: number) => JSON.stringify({ action: 'opened', issue: { id: i, number: i, title: `Bug ${i}` } }),
    sign: (body: string, id: string, secret: string = SECRETS.codehostA) => sign_.codehostA(secret, body, id),
    wrong: 'codehost-a-wrong-secret',
  },
  'codehost-b': {
    path: '/webhooks/codehost-b',
    body: (i: number) =>
      JSON.stringify({ object_kind: 'note', object_attributes: { id: i, note: `n ${i}` } }),
    sign: (body: string, id: string, secret: string = SECRETS.codehostB) => sign_.codehostB(secret, body, id),
    wrong: `whsec_${Buffer.alloc(24, 9).toString('base64')}`,
  },
} as const;

const zero = (): Counts => ({ accepted: 0, duplicates: 0, refused: 0, not_configured: 0 });

type Answer = { surfaces: Array<{ surface: string; arrivals: Counts }> };

/**
 * Every surface's arrival counts as `node` answers `GET /integrations`: the fleet's answer, the highest of
 * each count any node gave (http/scatter.merges.ts), so one node's fold short of the others does not show.
 */
async function countsOn(node: FleetNode): Promise<Tally> {
  const res = await fetch(`${node.url}/integrations`, { headers: auth });
  return tallyOf((await res.json()) as Answer);
}

/** The counts of `node`'s own fold: its answer to a peer's scatter request, which merges nothing. */
async function ownCounts(bus: Bus, node: FleetNode): Promise<Tally> {
  const request = { v: SCATTER_VERSION, what: 'integrations', params: [] };
  const reply = await bus.request(scatterSubject(node.id), encoder.encode(JSON.stringify(request)), {
    timeoutMs: 10_000,
  });
  return tallyOf((JSON.parse(decoder.decode(reply.data)) as { answer: Answer }).answer);
}

function tallyOf(body: Answer): Tally {
  const of = (surface: Surface): Counts => {
    const { accepted, duplicates, refused, not_configured } =
      body.surfaces.find((s) => s.surface === surface)?.arrivals ?? zero();
    return { accepted, duplicates, refused, not_configured };
  };
  return { 'codehost-a': of('codehost-a'), 'codehost-b': of('codehost-b') };
}

/** What every sender shares: the answers counted, the ids accepted (per surface), the next number. */
interface Sent {
  readonly tally: Tally;
  readonly accepted: Record<Surface, number[]>;
  readonly unexpected: string[];
  next: number;
}

/**
 * Sends deliveries to `node` with `WORKERS` in flight until `stop()`, counting what each was answered. The
 * surface alternates every eight; of every eight, one is signed with the wrong secret and one sends an
 * accepted delivery (id and body) again, to either node.
 */
function sender(node: FleetNode, sent: Sent) {
  let stopping = false;
  const one = async (): Promise<void> => {
    const i = sent.next++;
    const surface: Surface = Math.floor(i / 8) % 2 === 0 ? 'codehost-a' : 'codehost-b';
    const { path, body, sign, wrong } = SURFACES[surface];
    const taken = sent.accepted[surface];
    const kind = i % 8 === 3 ? 'refused' : i % 8 === 5 && taken.length > 0 ? 'repeat' : 'new';
    const n = kind === 'repeat' ? taken[i % taken.length]! : i;
    const text = body(n);
    const res = await fetch(`${node.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...sign(text, `d-${n}`, kind === 'refused' ? wrong : undefined) }, // prettier-ignore
      body: text,
    });
    const answer = (await res.json()) as { duplicate?: boolean };
    const counts = sent.tally[surface];
    if (res.status === 401 && kind === 'refused') counts.refused += 1;
    else if (res.status === 200 && answer.duplicate === true && kind === 'repeat') counts.duplicates += 1;
    else if (res.status === 200 && answer.duplicate === false && kind === 'new') {
      counts.accepted += 1;
      taken.push(n);
    } else sent.unexpected.push(`${kind} ${surface} d-${n}: ${res.status} ${JSON.stringify(answer)}`);
  };
  const worker = async (): Promise<void> => {
    while (!stopping) await one();
  };
  const workers = Array.from({ length: WORKERS }, worker);
  return {
    async stop(): Promise<void> {
      stopping = true;
      await Promise.all(workers);
    },
  };
}

interface Stored {
  readonly seq: number;
  readonly type: string;
  readonly through?: number;
  readonly node?: string;
}

async function stored(bus: Bus): Promise<Stored[]> {
  const out: Stored[] = [];
  for await (const m of bus.replay(Streams.Integrations)) {
    const { type, through, node } = JSON.parse(decoder.decode(m.data)) as Omit<Stored, 'seq'>;
    out.push({ seq: m.seq, type, ...(through === undefined ? {} : { through }), ...(node ? { node } : {}) });
  }
  return out;
}

const compactions = (...nodes: FleetNode[]): number =>
  nodes.reduce((n, node) => n + node.run.lines.filter((l) => l.msg === 'arrivals_compacted').length, 0);

t.test(
  'two svc serve nodes compacting the arrival records under deliveries, one killed and served again, count every delivery once, as a node started afterwards does',
  async (t) => {
    const nats = await startNatsServer({ t });
    const opts = { store: true, extra: COMPACTION };
    const b = await startFleetNode(t, 'node-b', nats.url, opts);
    const put = await fetch(`${b.url}/config`, {
      method: 'PUT',
      headers: { ...auth, 'content-type': 'application/json', 'x-summary': 'fleet compaction' },
      body: JSON.stringify({
        name: 'Acme',
        integrations: {
          codehost_a: { webhook_secret: SECRETS.codehostA },
          codehost_b: { enabled: true, url: 'https://codehost-b.example', signing_secret: SECRETS.codehostB },
        },
        roles: [{ name: 'Ada' }],
      }),
    });
    t.equal(put.status, 201, put.status === 201 ? 'the company is stored' : await put.text());
    await b.run.waitForLog((l) => l.msg === 'config applied');
    const sent: Sent = {
      tally: { 'codehost-a': zero(), 'codehost-b': zero() },
      accepted: { 'codehost-a': [], 'codehost-b': [] },
      unexpected: [],
      next: 0,
    };
    const fromB = sender(b, sent);
    // node-a boots on arrival records, so it saves a checkpoint of its fold at once, before any rollup.
    await until(
      async () => sent.tally['codehost-a'].accepted,
      (n) => n > 0,
    );
    let a = await startFleetNode(t, 'node-a', nats.url, opts);
    await a.run.waitForLog((l) => l.msg === 'config applied');
    let fromA = sender(a, sent);
    const seen = { timeoutMs: 30_000, everyMs: 50 };

    // Both nodes take deliveries while rollups land.
    const served = compactions(b);
    await until(
      async () => compactions(a, b),
      (n) => n >= served + 2,
      seen,
    );
    await fromA.stop();
    await countsOn(a); // appends the refusals node-a counted and had not recorded yet
    a.run.kill('SIGKILL');
    await a.run.exited;
    // node-b compacts alone while node-a is down.
    const onB = compactions(b);
    await until(
      async () => compactions(b),
      (n) => n > onB,
      seen,
    );
    a = await restartFleetNode(t, a);
    const back = await a.run.waitForLog(
      (l) => l.msg === 'projection ready' && l['projection'] === 'integrations',
    );
    t.match(back, { from: 'checkpoint' }, 'node-a folds on from the checkpoint it saved at its first boot');
    fromA = sender(a, sent);
    // More rollups land with node-a back.
    const resumed = compactions(b);
    await until(
      async () => compactions(a, b),
      (n) => n >= resumed + 2,
      seen,
    );
    await Promise.all([fromA.stop(), fromB.stop()]);
    const { tally } = sent;
    t.same(sent.unexpected, [], 'every delivery was answered as sent');
    t.ok(
      tally['codehost-a'].duplicates > 0 && tally['codehost-b'].refused > 0,
      `each kind of answer was given: ${JSON.stringify(tally)}`,
    );

    // Each node asked once appends what it counted; asked again, it answers on what every node recorded.
    await Promise.all([countsOn(a), countsOn(b)]);
    const c = await startFleetNode(t, 'node-c', nats.url);
    const bus = await openBus({ type: 'jetstream', url: nats.url });
    t.teardown(() => bus.close());
    for (const [node, who] of [
      [a, 'node-a, served again after the kill,'],
      [b, 'node-b'],
      [c, 'node-c, started afterwards from zero,'],
    ] as const) {
      t.same(await ownCounts(bus, node), tally, `${who} counts every delivery once in its own fold`);
      t.same(await countsOn(node), tally, `${who} answers GET /integrations with the same counts`);
    }

    // A compaction under way may have appended its rollup and not yet removed what it sums.
    const left = await until(
      () => stored(bus),
      (records) => {
        const through = Math.max(0, ...records.map((r) => r.through ?? 0));
        return !records.some((r) => r.type === 'arrival' && r.seq <= through);
      },
      seen,
    );
    const rollups = left.filter((r) => r.type === 'arrivals_rollup');
    t.ok(
      rollups.some((r) => r.seq <= Number(back['seq']) && r.through! > Number(back['checkpoint_seq'])),
      'node-a came back from a checkpoint older than a rollup that landed before',
    );
    // Which node compacts depends on how their timers fall: node-b did while node-a was down.
    t.ok(
      rollups.some((r) => r.node === 'node-b'),
      'node-b compacted',
    );
    t.comment(`rollups by node-a: ${rollups.filter((r) => r.node === 'node-a').length} of ${rollups.length}`);
    t.ok(rollups.length >= 4, `rollups kept in SVC_INTEGRATIONS: ${rollups.length}`);
    t.ok(
      left.filter((r) => r.type === 'arrival').length < sent.next,
      'fewer arrival records left than deliveries were sent',
    );
  },
);
