/**
 * A duplicate node id on real processes (ops/fleet.md "A duplicate node id"): node-a and node-b on one
 * nats-server with a 3 s seat lease, then a second process started with node-b's id on another port.
 * The leases of node-b's seats keep their epoch (no ping-pong between the two), both processes read
 * `/ready` 503 `admission_withheld` and raise the `duplicate_node_id` alarm, the duplicate holds no seat;
 * once it is killed, node-b is admitted again and a wake for every seat is processed.
 */
import t from 'tap';
import { ensureCatalogue, openBus, Streams } from '../../bus/index.js';
import { EventRecord, type FleetAnswer } from '../../schema/index.js';
import { startLlmServer } from '../fixtures/llm/llm-server.js';
import { startFleetNode, until, type FleetNode } from '../harness/fleet-node.js';
import { startNatsServer } from '../harness/nats-server.js';
import { TOKEN } from '../harness/serve-node.js';
import { mentionWake, queueWake } from '../harness/wake.js';
import { localProviders } from '../fixtures/llm/providers.js';

const leaseSeconds = 3;
const auth = { authorization: `Bearer ${TOKEN}` };
const skip = {
  kind: 'text' as const,
  text: '{"decision":"skip"}',
  usage: { prompt_tokens: 5, completion_tokens: 1 },
};

async function get<T>(node: FleetNode, path: string, headers: Record<string, string> = {}): Promise<T> {
  const res = await fetch(`${node.url}${path}`, { headers, signal: AbortSignal.timeout(2_000) });
  return (await res.json()) as T;
}

interface Ready {
  readonly ready: boolean;
  readonly reason?: string;
  readonly detail?: string;
}
interface Health {
  readonly seats: string[];
  readonly alarms?: { count: number; worst?: string };
}

t.test(
  'a duplicate node id: leases stay put, /ready says why on both, and after it is killed every seat runs its wakes',
  async (t) => {
    const nats = await startNatsServer({ t });
    const llm = await startLlmServer({ wire: 'openai', script: () => skip });
    t.teardown(() => llm.close());
    const bus = await openBus({ type: 'jetstream', url: nats.url });
    t.teardown(() => bus.close());
    await ensureCatalogue(bus);

    const seats = ['Ada', 'Bob', 'Cy', 'Dee'];
    const handles = seats.map((s) => s.toLowerCase());
    const a = await startFleetNode(t, 'node-a', nats.url, { leaseSeconds });
    const company = {
      name: 'Acme',
      timezone: 'UTC',
      providers: localProviders(llm.baseUrl),
      roles: seats.map((name) => ({ name })),
    };
    const put = await fetch(`${a.url}/config`, {
      method: 'PUT',
      headers: { ...auth, 'content-type': 'application/json', 'x-summary': 'fleet' },
      body: JSON.stringify(company),
    });
    t.equal(put.status, 201, 'the company is stored');
    await a.run.waitForLog((l) => l.msg === 'config applied');
    const b = await startFleetNode(t, 'node-b', nats.url, { leaseSeconds });
    await b.run.waitForLog((l) => l.msg === 'config applied');
    // Balanced: two seats each (node-b's share moves after one lease period).
    const balanced = await until(
      () => get<FleetAnswer>(a, '/fleet', auth),
      (f) => f.nodes.length === 2 && f.nodes.every((n) => n.seats.length === 2),
    );
    const ofB = balanced.nodes.find((n) => n.id === 'node-b')!.seats.sort();
    const epochs = (f: FleetAnswer) => ofB.map((h) => `${h}@${f.seats[h]?.node}:${f.seats[h]?.epoch}`);
    const before = epochs(balanced);

    // The same Tier A node id in a second process, on its own port.
    const dup = await startFleetNode(t, 'node-b', nats.url, { leaseSeconds });
    const dupAt = Date.now();
    for (const node of [b, dup]) {
      const ready = await until(
        () => get<Ready>(node, '/ready'),
        (r) => r.reason === 'admission_withheld',
      );
      t.match(ready.detail, /another process writes this node id/, `${node.url} /ready says why`);
      const health = await until(
        () => get<Health>(node, '/health'),
        (h) => (h.alarms?.count ?? 0) > 0,
      );
      t.equal(health.alarms?.worst, 'critical', `${node.url} /health shows the alarm`);
    }
    // Sampled over three lease periods since the duplicate started: node-b's leases never move.
    const moved: string[] = [];
    while (Date.now() - dupAt < 3 * leaseSeconds * 1000) {
      const now = epochs(await get<FleetAnswer>(a, '/fleet', auth));
      if (now.join() !== before.join()) moved.push(now.join());
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    t.same(moved, [], `node-b's seat leases kept their holder and epoch: ${before.join(' ')}`);
    t.same((await get<Health>(dup, '/health')).seats, [], 'the duplicate holds no seat');
    t.same((await get<Health>(b, '/health')).seats.sort(), ofB, 'node-b keeps its seats');

    dup.run.kill('SIGKILL');
    await dup.run.exited;
    // Its presence expires within a lease: node-b is admitted again and its alarm clears.
    await until(
      () => get<Ready>(b, '/ready'),
      (r) => r.ready,
    );
    await until(
      () => get<Health>(b, '/health'),
      (h) => h.alarms?.count === 0,
    );

    const traces = new Map<string, string>();
    for (const handle of handles) {
      const message = mentionWake('Anything to do?');
      traces.set(message.trace_id, handle);
      await queueWake(bus, handle, message);
    }
    const completed = async (): Promise<string[]> => {
      const out: string[] = [];
      for await (const msg of bus.replay(Streams.Events)) {
        const record = EventRecord.parse(JSON.parse(new TextDecoder().decode(msg.data)));
        const handle = record.trace_id ? traces.get(record.trace_id) : undefined;
        if (record.type === 'agent_turn_completed' && handle) out.push(handle);
      }
      return out.sort();
    };
    t.same(
      await until(completed, (done) => done.length === handles.length),
      handles,
      'a wake for every seat was processed once',
    );
  },
);
