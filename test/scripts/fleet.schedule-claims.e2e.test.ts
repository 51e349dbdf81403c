/**
 * A scheduled firing survives its claimant's kill -9 in a fleet (ops/schedules.md "Claims"): two `svc serve`
 * children on one nats-server (3 s lease), each through a publish gate, with a seat on a schedule every 10 s.
 * The duty holder is frozen at the wake publish of a firing it claimed (the server has its claim, not its
 * wake) and killed -9; its peer takes the duty and completes the firing. Then the same the other way round.
 * Every firing from the first to the last seen wakes the seat exactly once: one claim, done; one ledger
 * row, fired; one wake stored in the inbox; one turn.
 */
import t, { type Test } from 'tap';
import { Buckets, openBus, SCHEDULE_CLAIMS_TTL_MS, Streams, type Bus, type Kv } from '../../bus/index.js';
import { agentId, EventRecord, FiringClaim, uuidv5, type FleetAnswer } from '../../schema/index.js';
import { startLlmServer } from '../fixtures/llm/llm-server.js';
import { restartFleetNode, startFleetNode, until, type FleetNode } from '../harness/fleet-node.js';
import { startNatsServer } from '../harness/nats-server.js';
import { startPublishGate } from '../harness/publish-gate.js';
import { TOKEN } from '../harness/serve-node.js';

const auth = { authorization: `Bearer ${TOKEN}` };
const dec = new TextDecoder();
const PERIOD_MS = 10_000;

const fleetOf = async (node: FleetNode): Promise<FleetAnswer> =>
  (await (await fetch(`${node.url}/fleet`, { headers: auth })).json()) as FleetAnswer;

/** The schedule's wake to Ada's inbox, as the holder publishes it. */
const isTickWake = (subject: string, op: Buffer): boolean =>
  subject === 'svc.agent.ada.inbox' && op.includes('"kind":"schedule"');

async function events(bus: Bus): Promise<EventRecord[]> {
  const out: EventRecord[] = [];
  for await (const msg of bus.replay(Streams.Events))
    out.push(EventRecord.parse(JSON.parse(dec.decode(msg.data))));
  return out;
}

async function claims(kv: Kv): Promise<FiringClaim[]> {
  const out: FiringClaim[] = [];
  for (const key of await kv.keys()) {
    const entry = await kv.get(key);
    if (entry !== null) out.push(FiringClaim.parse(JSON.parse(dec.decode(entry.value))));
  }
  return out.sort((x, y) => x.row.scheduled_at.localeCompare(y.row.scheduled_at));
}

const rowsOf = (es: EventRecord[]) => es.filter((e) => e.type === 'schedule_fired');
const scheduledAt = (e: EventRecord): string => String(e.payload['scheduled_at']);

async function fleet(t: Test) {
  const nats = await startNatsServer({ t });
  const target = { host: '127.0.0.1', port: nats.port };
  const gateA = await startPublishGate(target, { t });
  const gateB = await startPublishGate(target, { t });
  const llm = await startLlmServer({
    wire: 'anthropic',
    script: () => ({
      kind: 'text',
      text: '{"verdict":"done","notes":"ok"}',
      usage: { input_tokens: 10, output_tokens: 2 },
    }),
  });
  t.teardown(() => llm.close());
  const bus = await openBus({ type: 'jetstream', url: nats.url });
  t.teardown(() => bus.close());

  const a = await startFleetNode(t, 'node-a', gateA.url);
  const put = await fetch(`${a.url}/config`, {
    method: 'PUT',
    headers: { ...auth, 'content-type': 'application/json', 'x-summary': 'claims' },
    body: JSON.stringify({
      name: 'Acme',
      timezone: 'UTC',
      providers: {
        llm: { main: { type: 'anthropic', model: 'claude-t', base_url: llm.baseUrl, api_keys: ['sk-t'] } },
        llm_order: ['main'],
      },
      roles: [{ name: 'Ada', schedules: [{ name: 'tick', cron: '*/10 * * * * *', task: 'tick-task' }] }],
    }),
  });
  t.equal(put.status, 201, 'the company is stored');
  await a.run.waitForLog((l) => l.msg === 'config applied');
  const b = await startFleetNode(t, 'node-b', gateB.url);
  await b.run.waitForLog((l) => l.msg === 'config applied');
  await until(
    () => fleetOf(b),
    (f) => f.nodes.length === 2 && f.duties['scheduler']?.node === 'node-a',
  );
  const kv = await bus.kv({ name: Buckets.ScheduleClaims, ttlMs: SCHEDULE_CLAIMS_TTL_MS });
  return { bus, kv, a, b, gateA, gateB };
}

/** Freezes `holder` at its next wake publish, kills it -9, and waits for `peer` to complete that firing. */
async function killAtClaim(
  t: Test,
  fx: { bus: Bus; kv: Kv },
  holder: FleetNode,
  gate: { arm: (m: typeof isTickWake) => Promise<string> },
  peer: FleetNode,
): Promise<string> {
  await gate.arm(isTickWake);
  holder.run.kill('SIGKILL');
  await holder.run.exited;
  const open = (await claims(fx.kv)).filter((c) => c.state === 'claimed');
  t.equal(open.length, 1, `${holder.id} died with one firing claimed and not woken`);
  const claim = open[0]!;
  t.equal(claim.node, holder.id, 'its own claim');
  const at = claim.row.scheduled_at;
  const done = await until(
    () => claims(fx.kv),
    (cs) => cs.some((c) => c.row.scheduled_at === at && c.state === 'done'),
    { timeoutMs: 30_000 },
  );
  t.match(
    done.find((c) => c.row.scheduled_at === at),
    { node: holder.id, row: { outcome: 'fired' } },
    `${peer.id} completed ${holder.id}'s claim as it was made`,
  );
  await peer.run.waitForLog(
    (l) => l.msg === 'completing a firing its claimant did not finish' && l['claimed_by'] === holder.id,
  );
  return at;
}

t.test('a firing whose holder is killed -9 between its claim and its wake wakes the seat once', async (t) => {
  const fx = await fleet(t);
  const first = await killAtClaim(t, fx, fx.a, fx.gateA, fx.b);
  const a = await restartFleetNode(t, fx.a);
  await a.run.waitForLog((l) => l.msg === 'config applied');
  const second = await killAtClaim(t, fx, fx.b, fx.gateB, a);
  t.ok(second > first, 'the second kill falls on a later firing');

  // Two more firings by the survivor: the window runs from the first firing ever to the last of those.
  const last = new Date(Date.parse(second) + 2 * PERIOD_MS).toISOString();
  const stored = await until(
    () => events(fx.bus),
    (es) => rowsOf(es).some((e) => scheduledAt(e) >= last),
    { timeoutMs: 40_000 },
  );
  const rows = rowsOf(stored).filter((e) => scheduledAt(e) <= last);
  const times = rows.map(scheduledAt).sort();
  const start = Date.parse(times[0]!);
  const series = Array.from({ length: (Date.parse(last) - start) / PERIOD_MS + 1 }, (_, i) =>
    new Date(start + i * PERIOD_MS).toISOString(),
  );
  t.same(times, series, 'one ledger row for every firing of the window, none lost, none doubled');
  t.ok(
    rows.every((e) => e.payload['outcome'] === 'fired'),
    'every row says fired',
  );
  t.ok(times.includes(first) && times.includes(second), 'the two completed firings are in the window');

  const window = (await claims(fx.kv)).filter((c) => c.row.scheduled_at <= last);
  t.same(
    window.map((c) => [c.row.scheduled_at, c.state]),
    series.map((s) => [s, 'done']),
    'one claim per firing, each done',
  );
  // Firings go on meanwhile: compare the inbox with the claims once every claim seen is done.
  const stores = await until(
    async () => {
      const cs = await claims(fx.kv);
      return {
        wakes: (await fx.bus.streamInfo(Streams.Inbox)).lastSeq,
        claims: cs.length,
        open: cs.some((c) => c.state !== 'done'),
      };
    },
    (v) => !v.open && v.wakes === v.claims,
    { timeoutMs: 20_000 },
  );
  t.equal(stores.wakes, stores.claims, 'one wake stored per firing');

  // Each wake's turn completes once (the turn id is derived from the wake id).
  const ada = agentId('Acme', 'ada');
  const turns = await until(
    async () => (await events(fx.bus)).filter((e) => e.type === 'agent_turn_completed'),
    (es) => window.every((c) => es.some((e) => e.payload['turn_id'] === uuidv5(ada, c.wake!.id))),
    { timeoutMs: 40_000 },
  );
  for (const c of window) {
    const turnId = uuidv5(ada, c.wake!.id);
    t.equal(
      turns.filter((e) => e.payload['turn_id'] === turnId).length,
      1,
      `the firing at ${c.row.scheduled_at} ran one turn`,
    );
  }
});
