/**
 * Seat leases on a fleet of real processes: a 3-server nats-server cluster, two `svc serve` children
 * (node-a reaches NATS through a TCP proxy the test can blackhole), a 3 s seat lease. A sampler asks
 * both nodes' `/health` every 100 ms which seats they hold; no sample may show one seat on both.
 * Faults as they happen: a partition, SIGSTOP past the lease then SIGCONT, kill -9 mid-turn.
 */
import t, { type Test } from 'tap';
import { ensureCatalogue, openBus, Streams, type Bus } from '../../bus/index.js';
import { EventRecord } from '../../schema/index.js';
import { startLlmServer, type LlmServer } from '../fixtures/llm/llm-server.js';
import { startFleetNode, type FleetNode as BaseNode } from '../harness/fleet-node.js';
import { startNatsCluster, type NatsClusterHandle } from '../harness/nats-server.js';
import { TOKEN } from '../harness/serve-node.js';
import { startTcpProxy, type TcpProxy } from '../harness/tcp-proxy.js';
import { until } from '../harness/until.js';
import { mentionWake, queueWake } from '../harness/wake.js';
import { localProviders } from '../fixtures/llm/providers.js';

const leaseSeconds = 3;
const skip = {
  kind: 'text' as const,
  text: '{"decision":"skip"}',
  usage: { prompt_tokens: 5, completion_tokens: 1 },
};

interface FleetNode extends BaseNode {
  /** The seats `/health` lists, or null when the node did not answer in time (stopped, dead). */
  seats(): Promise<string[] | null>;
}

async function startNode(t: Test, id: string, natsUrl: string): Promise<FleetNode> {
  const node = await startFleetNode(t, id, natsUrl, { leaseSeconds });
  return {
    ...node,
    async seats() {
      try {
        const res = await fetch(`${node.url}/health`, { signal: AbortSignal.timeout(250) });
        const body = (await res.json()) as { seats?: string[] };
        return body.seats ?? [];
      } catch {
        return null;
      }
    },
  };
}

/** Samples every node's held seats every 100 ms until stopped; counts samples with a seat held twice. */
function sampler(nodes: readonly FleetNode[]): {
  stop(): Promise<{ samples: number; doubled: string[] }>;
  /** Resolves at the first sample that passes `test`; fails after `timeoutMs` (default 60 s). */
  until(test: (held: Map<string, string[]>) => boolean, timeoutMs?: number): Promise<void>;
} {
  let running = true;
  let samples = 0;
  const doubled: string[] = [];
  const waiters: { test: (held: Map<string, string[]>) => boolean; resolve: () => void }[] = [];
  const loop = (async () => {
    while (running) {
      const next = new Promise((resolve) => setTimeout(resolve, 100));
      const answers = await Promise.all(nodes.map((n) => n.seats()));
      const held = new Map<string, string[]>();
      answers.forEach((seats, i) => {
        for (const seat of seats ?? []) held.set(seat, [...(held.get(seat) ?? []), nodes[i]!.id]);
      });
      samples += 1;
      for (const [seat, holders] of held)
        if (holders.length > 1) doubled.push(`${seat}: ${holders.join(', ')}`);
      for (const waiter of [...waiters])
        if (waiter.test(held)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve();
        }
      await next;
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { samples, doubled };
    },
    until: (test, timeoutMs = 60_000) =>
      new Promise((resolve, reject) => {
        const waiter = {
          test,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        };
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(waiter), 1);
          reject(new Error(`no sample matched in ${timeoutMs} ms (${samples} samples)`));
        }, timeoutMs);
        waiters.push(waiter);
      }),
  };
}

interface Fleet {
  readonly cluster: NatsClusterHandle;
  readonly proxy: TcpProxy;
  readonly bus: Bus;
  readonly llm: LlmServer;
  readonly a: FleetNode;
  readonly b: FleetNode;
  wake(handle: string): Promise<string>;
  /** Every stored event, oldest first. */
  events(): Promise<EventRecord[]>;
}

/**
 * The cluster, node-a (through the proxy) configured first so it takes every seat, then node-b. The
 * model's first answer is held (`first`), so the first wake's turn stays in flight until released.
 */
async function startFleet(t: Test, seats: string[]): Promise<Fleet> {
  const cluster = await startNatsCluster(3, { t });
  const first = new URL(cluster.urls[0]!);
  const proxy = await startTcpProxy(
    { host: first.hostname, port: Number(first.port) },
    { scheme: 'nats', t },
  );
  const llm = await startLlmServer({
    wire: 'openai',
    script: (_request, n) => (n === 0 ? { ...skip, hold: 'first' } : skip),
  });
  t.teardown(() => llm.close());
  const bus = await openBus({ type: 'jetstream', url: cluster.urls[1]! });
  t.teardown(() => bus.close());
  await ensureCatalogue(bus);
  const a = await startNode(t, 'node-a', proxy.url);
  const company = {
    name: 'Acme',
    timezone: 'UTC',
    providers: localProviders(llm.baseUrl),
    roles: seats.map((name) => ({ name })),
  };
  const put = await fetch(`${a.url}/config`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'x-summary': 'fleet' },
    body: JSON.stringify(company),
  });
  t.equal(put.status, 201, 'the company is stored');
  const handles = seats.map((s) => s.toLowerCase());
  await a.run.waitForLog((l) => l.msg === 'config applied');
  const b = await startNode(t, 'node-b', cluster.urls[1]!);
  await b.run.waitForLog((l) => l.msg === 'config applied');
  t.same(((await a.seats()) ?? []).sort(), handles, 'node-a, first, holds every seat');
  return {
    cluster,
    proxy,
    bus,
    llm,
    a,
    b,
    async wake(handle) {
      const message = mentionWake('Anything to do?');
      await queueWake(bus, handle, message);
      return message.trace_id;
    },
    async events() {
      const out: EventRecord[] = [];
      for await (const msg of bus.replay(Streams.Events))
        out.push(EventRecord.parse(JSON.parse(new TextDecoder().decode(msg.data))));
      return out;
    },
  };
}

const completes = (events: readonly EventRecord[]): boolean =>
  events.some((e) => e.type === 'agent_turn_completed');

const holdsAll = (node: string, handles: string[]) => (held: Map<string, string[]>) =>
  handles.every((h) => held.get(h)?.length === 1 && held.get(h)![0] === node);

t.test(
  'a node partitioned from NATS stops its seats before the peer takes them: never two holders',
  async (t) => {
    const handles = ['ada', 'bob', 'cy'];
    const fleet = await startFleet(t, ['Ada', 'Bob', 'Cy']);
    const watch = sampler([fleet.a, fleet.b]);
    const cutAt = Date.now();
    fleet.proxy.blackhole();
    await watch.until(holdsAll('node-b', handles));
    const replaced = (Date.now() - cutAt) / 1000;
    await fleet.a.run.waitForLog((l) => l.msg.startsWith('seat fenced'));
    // Re-placement within the lease plus a renewal tick (and the sampler's period).
    t.ok(replaced <= leaseSeconds + leaseSeconds / 3 + 1.5, `re-placed after ${replaced.toFixed(1)} s`);
    t.same(await fleet.a.seats(), [], 'the partitioned node lists no seat');

    fleet.proxy.restore();
    fleet.proxy.cut();
    await fleet.a.run
      .waitForLog((l) => /reconnect/i.test(l.msg) || l.msg === 'bus: reconnected', 30_000)
      .catch(() => null);
    // Two more lease periods after the partition healed: the seats stay where they are, singly held.
    await watch.until(() => true);
    const settle = Date.now();
    await watch.until(() => Date.now() - settle > 2 * leaseSeconds * 1000);
    const { samples, doubled } = await watch.stop();
    t.ok(samples > 50, `${samples} samples`);
    t.same(doubled, [], 'no sample showed a seat held by two nodes');
  },
);

t.test(
  'a holder stopped past its lease mid-turn is fenced when it resumes: the peer completes the wake once',
  async (t) => {
    const fleet = await startFleet(t, ['Ada']);
    const watch = sampler([fleet.a, fleet.b]);
    const trace = await fleet.wake('ada');
    await fleet.llm.waitForRequests(1);
    const pid = fleet.a.run.child.pid!;
    process.kill(pid, 'SIGSTOP');
    t.teardown(() => {
      if (fleet.a.run.child.exitCode === null) process.kill(pid, 'SIGCONT');
    });
    const stoppedAt = new Date();
    await watch.until(holdsAll('node-b', ['ada']));
    const events = async (): Promise<EventRecord[]> =>
      (await fleet.events()).filter((e) => e.trace_id === trace);
    // The peer runs the wake (redelivered once node-a stopped marking it in progress) to completion.
    await until(events, completes, 60_000);
    // node-a's model call now answers, and node-a resumes.
    fleet.llm.release('first');
    process.kill(pid, 'SIGCONT');
    await fleet.a.run.waitForLog((l) => l.msg.startsWith('seat fenced'));
    await fleet.a.run
      .waitForLog((l) => l.msg === 'bus: handler failed; will redeliver' || l.msg === 'phase failed', 10_000)
      .catch(() => null);
    const settle = Date.now();
    await watch.until(() => Date.now() - settle > leaseSeconds * 1000);
    const { doubled } = await watch.stop();
    t.same(doubled, [], 'never two holders, before or after the resume');

    const mine = await events();
    const completed = mine.filter((e) => e.type === 'agent_turn_completed');
    t.equal(completed.length, 1, 'the wake completed once');
    t.match(completed[0]!.source, /^node-b\//, 'by the peer');
    const late = mine.filter((e) => e.source.startsWith('node-a/') && new Date(e.timestamp) >= stoppedAt);
    t.same(
      late.map((e) => e.type),
      [],
      'node-a wrote nothing for the wake after it was stopped: its late effects were refused',
    );
  },
);

t.test(
  'kill -9 of a holder mid-turn: the peer takes the seat and the wake completes exactly once',
  async (t) => {
    const fleet = await startFleet(t, ['Ada']);
    const trace = await fleet.wake('ada');
    await fleet.llm.waitForRequests(1);
    fleet.a.run.kill('SIGKILL');
    await fleet.a.run.exited;
    const watch = sampler([fleet.b]);
    await watch.until(holdsAll('node-b', ['ada']));
    const events = async (): Promise<EventRecord[]> =>
      (await fleet.events()).filter((e) => e.trace_id === trace);
    await until(events, completes, 60_000);
    await watch.stop();
    const completed = (await events()).filter((e) => e.type === 'agent_turn_completed');
    t.equal(completed.length, 1, 'the wake was neither lost nor completed twice');
    t.match(completed[0]!.source, /^node-b\//);
    // The record carries the lease epoch it was written under: node-a held epoch 1, the peer took 2.
    for await (const msg of fleet.bus.replay(Streams.Events)) {
      const record = EventRecord.parse(JSON.parse(new TextDecoder().decode(msg.data)));
      if (record.type === 'agent_turn_completed' && record.trace_id === trace)
        t.equal(msg.headers['svc-lease-epoch'], '2', 'written under the peer’s epoch');
    }
  },
);
