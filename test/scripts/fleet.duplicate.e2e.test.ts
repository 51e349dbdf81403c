/**
 * A duplicate node id on real processes (ops/fleet.md "A duplicate node id"): node-a and node-b on one
 * nats-server with a 3 s seat lease, then node-b's Tier A file copied to a second process (another port).
 * It refuses to start (exit 1), naming the id and the running process (pid, host, API address, start),
 * and writes nothing; node-b's seat leases keep their epoch, it stays ready without an alarm, `/fleet`
 * names its process, and a wake for every seat is processed. Two processes that start at the same
 * instant, or one started while the other is paused, both withhold admission instead
 * (test/actors/fleet/presence.int.test.ts).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { ensureCatalogue, openBus, Streams } from '../../bus/index.js';
import { EventRecord, type FleetAnswer } from '../../schema/index.js';
import { startLlmServer } from '../fixtures/llm/llm-server.js';
import { freePort, runSvc } from '../harness/child.js';
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
  'a second process started with a running node id refuses to start, naming the running one; the node keeps its seats',
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

    // The same Tier A file copied to a second process (only its port changed): refused before it writes.
    const bPort = new URL(b.url).port;
    const dir = mkdtempSync(join(tmpdir(), 'svc-fleet-dup-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const copied = join(dir, 'config.yaml');
    writeFileSync(
      copied,
      readFileSync(b.configFile, 'utf8').replace(`port: ${bPort}`, `port: ${await freePort()}`),
    );
    const dup = runSvc(['serve', '--config', copied], { SVC_TOKEN: TOKEN });
    t.teardown(() => dup.kill('SIGKILL'));
    t.equal(await dup.exited, 1, 'the second process exits 1');
    const bStarted = (await get<FleetAnswer>(a, '/fleet', auth)).nodes.find((n) => n.id === 'node-b')!;
    const said = `node id node-b is already running (pid ${b.run.child.pid}, on host ${hostname()}, API 127.0.0.1:${bPort}, started ${bStarted.started_at})`;
    t.match(dup.stderr(), said, 'stderr names the id and the running process');
    const fatal = dup.lines.find((l) => l.event === 'serve_refused');
    t.equal(fatal?.level, 60, 'its log has one fatal line');
    t.ok(fatal?.msg.includes(said), `which says the same: ${fatal?.msg}`);
    t.notOk(
      dup.lines.some((l) => l.msg === 'presence written'),
      'the refused process wrote no presence',
    );

    const after = await get<FleetAnswer>(a, '/fleet', auth);
    t.same(epochs(after), before, `node-b's seat leases kept their holder and epoch: ${before.join(' ')}`);
    const row = after.nodes.find((n) => n.id === 'node-b')!;
    t.match(
      row,
      { pid: b.run.child.pid, host: hostname(), api: { port: Number(bPort) } },
      '/fleet names the running process',
    );
    t.notOk('duplicates' in row, 'and no duplicate');
    t.match(await get<Ready>(b, '/ready'), { ready: true }, 'node-b stays ready');
    t.equal((await get<Health>(b, '/health')).alarms?.count, 0, 'and raises no alarm');

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
