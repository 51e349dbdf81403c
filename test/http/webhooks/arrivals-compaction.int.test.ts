/**
 * The arrival records are compacted (ops/webhooks.md "Compaction"): a rollup takes their place, the pass
 * records stay, and every view of the counts — the compacting node's, a racing node's, one folding live,
 * one booting from zero or from a checkpoint taken before — reads the same totals and last times. On the
 * memory engine and on JetStream (each node its own connection to one nats-server). Compaction on a busy
 * stream: arrivals-compaction-busy.int.test.ts.
 */
import t, { type Test } from 'tap';
import { listPassRuns, openCheckpoints } from '../../../projections/index.js';
import { followIntegrations, type IntegrationsView } from '../../../scripts/integrations-view.js';
import {
  onBothEngines,
  recordPass,
  records,
  sameCounts,
  writer,
  type Engine,
} from './fixtures/arrivals-compaction.js';

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
      t.equal(view.state().sinceRollup.length, 0);

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
      const through = Math.max(...left.map((r) => r.through ?? 0));
      t.ok(through > 0, 'a rollup is kept');
      t.notOk(
        left.some((r) => r.type === 'arrival' && r.seq <= through),
        'no arrival record summed by a rollup is left',
      );
    },
  );
}

onBothEngines(compactionTests);
