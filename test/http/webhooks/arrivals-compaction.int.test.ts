/**
 * The arrival records are compacted (ops/webhooks.md "Compaction"): a rollup takes their place, the pass
 * records stay, and every view of the counts — the compacting node's, a racing node's, one folding live,
 * one booting from zero or from a checkpoint taken before — reads the same totals and last times. On the
 * memory engine and on JetStream (each node its own connection to one nats-server).
 */
import t, { type Test } from 'tap';
import { ensureCatalogue, openBus, openMemoryBus, Streams, Subjects, type Bus } from '../../../bus/index.js';
import { Arrivals } from '../../../http/index.js';
import {
  arrivalsOf,
  emptyIntegrationsState,
  listPassRuns,
  openCheckpoints,
  type SurfaceCounts,
} from '../../../projections/index.js';
import { followIntegrations, type IntegrationsView } from '../../../scripts/integrations-view.js';
import { startNatsServer } from '../../harness/nats-server.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const SURFACES = ['tracker-a', 'chat/ada', 'wiki/cloud'] as const;

interface Engine {
  /** A bus as one more node of the fleet sees the store. */
  readonly node: () => Promise<Bus>;
}

/** The counts as the writers made them: what every view must read. */
class Tally {
  readonly counts = new Map<string, SurfaceCounts>();
  private clock = Date.parse('2026-03-01T00:00:00.000Z');
  now = (): number => this.clock;
  tick(): void {
    this.clock += 1000;
  }
  private of(surface: string): SurfaceCounts {
    let c = this.counts.get(surface);
    if (!c) this.counts.set(surface, (c = arrivalsOf(emptyIntegrationsState(), surface)));
    return c;
  }
  /** One accepted delivery and one refusal per surface, at the next second, appended. */
  async deliver(arrivals: Arrivals): Promise<void> {
    this.tick();
    const at = new Date(this.clock).toISOString();
    await Promise.all(SURFACES.map((s) => arrivals.record(s, 'accepted')));
    for (const s of SURFACES) {
      arrivals.count(s, 'refused');
      const c = this.of(s);
      c.accepted += 1;
      c.refused += 1;
      c.last_accepted_at = at;
      c.last_refused_at = at;
    }
    await arrivals.flush();
  }
}

async function sameCounts(t: Test, view: IntegrationsView, tally: Tally, who: string): Promise<void> {
  await view.caughtUp(10_000);
  t.same(
    Object.fromEntries(SURFACES.map((s) => [s, view.arrivals(s)])),
    Object.fromEntries(tally.counts),
    `${who} reads every arrival once`,
  );
}

async function records(bus: Bus): Promise<Array<{ seq: number; type: string; subject: string }>> {
  const out = [];
  for await (const m of bus.replay(Streams.Integrations)) {
    const { type } = JSON.parse(decoder.decode(m.data)) as { type: string };
    out.push({ seq: m.seq, type, subject: m.subject });
  }
  return out;
}

async function recordPass(bus: Bus, id: string): Promise<void> {
  const started_at = '2026-03-01T00:00:00.000Z';
  const start = { type: 'pass_started', run_id: id, kind: 'tracker-b', mode: 'check', node: 'n', actor: 'op', started_at }; // prettier-ignore
  const run = { id, kind: 'tracker-b', mode: 'check', node: 'n', actor: 'op', started_at, finished_at: started_at, status: 'succeeded', reason: null, steps: [] }; // prettier-ignore
  await bus.publish(Subjects.integration('tracker-b', 'pass_started'), encoder.encode(JSON.stringify(start)));
  await bus.publish(
    Subjects.integration('tracker-b', 'pass_finished'),
    encoder.encode(JSON.stringify({ type: 'pass_finished', run })),
  );
}

/** The store with its catalogue, and a node writing arrivals on it with the tally's clock. */
async function writer(engine: (t: Test) => Promise<Engine>, t: Test) {
  const { node } = await engine(t);
  const bus = await node();
  await ensureCatalogue(bus);
  const tally = new Tally();
  const arrivals = new Arrivals({ bus, nodeId: 'w', now: tally.now, flushEveryMs: 60_000 });
  return { node, bus, tally, arrivals };
}

function compactionTests(name: string, engine: (t: Test) => Promise<Engine>): void {
  t.test(
    `${name}: a rollup replaces the arrival records, the pass records stay, and the counts read the same before and after, from zero and from an older checkpoint`,
    async (t) => {
      const { node, bus, tally, arrivals } = await writer(engine, t);
      await recordPass(bus, 'p1');
      for (let i = 0; i < 4; i++) await tally.deliver(arrivals);
      const checkpoints = openCheckpoints(':memory:');
      t.teardown(() => checkpoints.close());
      // A node that stops before the compaction and comes back after it, from its checkpoint.
      const earlier = await followIntegrations({ bus: await node(), checkpoints });
      await sameCounts(t, earlier, tally, 'the node before the compaction');
      await earlier.stop();

      const view = await followIntegrations({ bus, rollups: { nodeId: 'n1', threshold: 30, everyMs: 0 } });
      t.teardown(() => view.stop());
      t.match(await view.rollups!.compact(), { outcome: 'not_due', since_rollup: 24 });
      for (let i = 0; i < 4; i++) await tally.deliver(arrivals);
      const outcome = await view.rollups!.compact();
      t.match(outcome, { outcome: 'compacted', removed: 8 * 6 });
      const left = await records(bus);
      t.same(
        left.map((r) => r.type),
        ['pass_started', 'pass_finished', 'arrivals_rollup'],
        'one rollup in place of every arrival record; the pass records stay',
      );
      t.equal(left[2]?.subject, 'svc.integrations.arrivals.rollup');
      await sameCounts(t, view, tally, 'the compacting node');
      t.equal(view.state().sinceRollup, 0);

      await tally.deliver(arrivals);
      t.match(await view.rollups!.compact(), { outcome: 'not_due', since_rollup: 6 });
      await sameCounts(t, view, tally, 'the compacting node, arrivals after the rollup added');
      const fresh = await followIntegrations({ bus: await node() });
      t.teardown(() => fresh.stop());
      t.equal(fresh.running.boot.from, 'zero');
      await sameCounts(t, fresh, tally, 'a node starting from zero on the compacted stream');
      t.same(
        listPassRuns(fresh.state(), 'tracker-b', { limit: 10 }).runs.map((r) => r.id),
        ['p1'],
        'the pass history is read as before',
      );
      const back = await followIntegrations({ bus: await node(), checkpoints });
      t.teardown(() => back.stop());
      t.equal(back.running.boot.from, 'checkpoint');
      await sameCounts(t, back, tally, 'the node back from a checkpoint older than the rollup');
    },
  );

  t.test(
    `${name}: deliveries appended between the fold's read and the rollup's append are not lost: that append is refused and the rollup summed again`,
    async (t) => {
      const { node, bus, tally, arrivals } = await writer(engine, t);
      await tally.deliver(arrivals);
      // This node's rollup append comes just after another node's deliveries, once.
      let interleaved = false;
      const compacting = new Proxy(bus, {
        get(target, prop) {
          if (prop === 'publish')
            return async (...args: Parameters<Bus['publish']>) => {
              if (args[0] === 'svc.integrations.arrivals.rollup' && !interleaved) {
                interleaved = true;
                await tally.deliver(arrivals);
              }
              return target.publish(...args);
            };
          const value: unknown = Reflect.get(target, prop, target);
          return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
        },
      });
      const view = await followIntegrations({
        bus: compacting,
        rollups: { nodeId: 'n1', threshold: 1, everyMs: 0 },
      });
      t.teardown(() => view.stop());
      t.match(await view.rollups!.compact(), { outcome: 'compacted', removed: 12 });
      t.ok(interleaved);
      await sameCounts(t, view, tally, 'the compacting node');
      const fresh = await followIntegrations({ bus: await node() });
      t.teardown(() => fresh.stop());
      await sameCounts(t, fresh, tally, 'a node starting from zero');
    },
  );

  t.test(
    `${name}: two nodes compacting at once while deliveries go on, a node folding live and nodes booting mid-compaction, all count every arrival once`,
    async (t) => {
      const { node, bus, tally, arrivals } = await writer(engine, t);
      const rollups = (id: string) => ({ nodeId: id, threshold: 1, everyMs: 0 });
      const a = await followIntegrations({ bus: await node(), rollups: rollups('a') });
      t.teardown(() => a.stop());
      const b = await followIntegrations({ bus: await node(), rollups: rollups('b') });
      t.teardown(() => b.stop());
      const live = await followIntegrations({ bus: await node() });
      t.teardown(() => live.stop());
      const booted: IntegrationsView[] = [];
      t.teardown(() => Promise.all(booted.map((v) => v.stop())));
      const outcomes: string[] = [];
      for (let round = 0; round < 6; round++) {
        await tally.deliver(arrivals);
        const [x, y] = await Promise.all([
          a.rollups!.compact(),
          b.rollups!.compact(),
          tally.deliver(arrivals),
          followIntegrations({ bus: await node() }).then((v) => void booted.push(v)),
        ]);
        outcomes.push(x.outcome, y.outcome);
      }
      t.ok(outcomes.includes('compacted'), 'compactions happened');
      t.notOk(outcomes.includes('deferred'), 'none gave up');
      for (const [who, view] of [
        ['a', a],
        ['b', b],
        ['the live fold', live],
      ] as const)
        await sameCounts(t, view, tally, who);
      for (const [i, view] of booted.entries())
        await sameCounts(t, view, tally, `the node booted in round ${i}`);
      const fresh = await followIntegrations({ bus: await node() });
      t.teardown(() => fresh.stop());
      await sameCounts(t, fresh, tally, 'a node starting from zero afterwards');
      const left = await records(bus);
      const newest = left.findLast((r) => r.type === 'arrivals_rollup');
      t.ok(newest, 'a rollup is kept');
      t.notOk(
        left.some((r) => r.type === 'arrival' && r.seq < newest!.seq),
        'no arrival record below the newest rollup',
      );
    },
  );
}

compactionTests('memory engine', async (t) => {
  const bus = await openMemoryBus();
  t.teardown(() => bus.close());
  return { node: () => Promise.resolve(bus) };
});

compactionTests('JetStream', async (t) => {
  const server = await startNatsServer({ t });
  return {
    node: async () => {
      const bus = await openBus({ type: 'jetstream', url: server.url });
      t.teardown(() => bus.close());
      return bus;
    },
  };
});
