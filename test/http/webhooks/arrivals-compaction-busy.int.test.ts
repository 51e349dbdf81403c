/**
 * Compaction on a stream that never pauses (ops/webhooks.md "Compaction"): a rollup names the sequence it
 * sums through and lands after whatever arrived meanwhile, so a compaction needs no lull; two nodes
 * compacting at once both append and every count stays exact; a store holding rollups of the conditional
 * release (the next record after what they sum, some without `through`) reads the same; a replay from the
 * start after compactions equals the live fold. On the memory engine and on JetStream.
 */
import t, { type Test } from 'tap';
import { Streams, Subjects, type Bus } from '../../../bus/index.js';
import type { Arrivals } from '../../../http/index.js';
import { openCheckpoints } from '../../../projections/index.js';
import { followIntegrations, type IntegrationsView } from '../../../scripts/integrations-view.js';
import {
  beforeRollups,
  onBothEngines,
  records,
  sameCounts,
  writer,
  type Engine,
  type Tally,
} from './fixtures/arrivals-compaction.js';

const encoder = new TextEncoder();
const rollups = (nodeId: string) => ({ nodeId, threshold: 1, everyMs: 0 });

/** Another node delivering without pause until stopped; `next()` resolves once a delivery begun after it landed. */
function sustained(tally: Tally, arrivals: Arrivals) {
  let stopped = false;
  let started = 0;
  let waiting: Array<{ readonly after: number; readonly resolve: () => void }> = [];
  // Only a delivery begun after the wait counts: one that was ending as the wait began may have landed its
  // records before the compaction summed them.
  const delivered = (n: number): void => {
    const ready = waiting.filter((w) => w.after < n);
    waiting = waiting.filter((w) => w.after >= n);
    for (const { resolve } of ready) resolve();
  };
  const loop = (async () => {
    try {
      while (!stopped) {
        const n = ++started;
        await tally.deliver(arrivals);
        delivered(n);
      }
    } finally {
      stopped = true;
      delivered(Infinity);
    }
  })();
  return {
    next: () =>
      new Promise<void>((resolve) => (stopped ? resolve() : waiting.push({ after: started, resolve }))),
    async stop() {
      stopped = true;
      await loop;
    },
  };
}

/** A compacting node whose rollup append the test holds until it lets it go. */
async function heldNode(node: () => Promise<Bus>, id: string) {
  let hold: { arrived: () => void; gate: Promise<void> } | null = null;
  const bus = beforeRollups(await node(), async () => {
    const h = hold;
    hold = null;
    if (h) {
      h.arrived();
      await h.gate;
    }
  });
  const view = await followIntegrations({ bus, rollups: rollups(id) });
  return {
    view,
    /** Starts a compaction; resolves once it has summed and is about to append, with what lets it go on. */
    async summed() {
      let release = (): void => undefined;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const arrived = new Promise<null>((resolve) => (hold = { arrived: () => resolve(null), gate }));
      const done = view.rollups!.compact();
      const early = await Promise.race([arrived, done]);
      if (early) throw new Error(`${id} did not reach its append: ${JSON.stringify(early)}`);
      return () => {
        release();
        return done;
      };
    },
  };
}

const rollupThroughs = async (bus: Bus): Promise<number[]> =>
  (await records(bus)).filter((r) => r.type === 'arrivals_rollup').map((r) => r.through ?? -1);

/** What a view answers and keeps: counts, the rollup it stands on, the arrival records above it. */
async function kept(view: IntegrationsView) {
  await view.caughtUp(10_000);
  const s = view.state();
  const rollupThrough = s.rollupThrough;
  const since = s.sinceRollup.map((a) => a.seq);
  return { counts: Object.fromEntries(s.arrivals), rollupThrough, since };
}

function busyTests(name: string, engine: (t: Test) => Promise<Engine>): void {
  t.test(`${name}: a compaction succeeds while another node keeps appending arrival records`, async (t) => {
    const { node, bus, tally, arrivals } = await writer(engine, t);
    for (let i = 0; i < 3; i++) await tally.deliver(arrivals);
    const live = await followIntegrations({ bus: await node() });
    t.teardown(() => live.stop());
    await sameCounts(t, live, tally, 'a node before the compactions');
    const stream = sustained(tally, arrivals);
    // Every rollup append of this node comes after another delivery landed past what it summed.
    const view = await followIntegrations({
      bus: beforeRollups(await node(), stream.next),
      rollups: rollups('n1'),
    });
    t.teardown(() => view.stop());
    const outcomes = [];
    for (let i = 0; i < 3; i++) outcomes.push(await view.rollups!.compact());
    await stream.stop();
    for (const outcome of outcomes) {
      if (outcome.outcome !== 'compacted') {
        t.fail(`a compaction did not happen: ${JSON.stringify(outcome)}`);
        continue;
      }
      t.ok(outcome.seq > outcome.through + 1, 'newer records landed between its sum and its rollup');
      t.ok(outcome.removed > 0, 'it removed the arrival records it summed');
    }
    for (const [who, v] of [
      ['the compacting node', view],
      ['a node folding live', live],
    ] as const)
      await sameCounts(t, v, tally, who);
    const fresh = await followIntegrations({ bus: await node() });
    t.teardown(() => fresh.stop());
    await sameCounts(t, fresh, tally, 'a node starting from zero after');
    const through = Math.max(...(await rollupThroughs(bus)));
    t.notOk(
      (await records(bus)).some((r) => r.type === 'arrival' && r.seq <= through),
      'no arrival record summed by a rollup is left',
    );
  });

  t.test(`${name}: two nodes compacting at once both append, and every count stays exact`, async (t) => {
    const { node, bus, tally, arrivals } = await writer(engine, t);
    const a = await heldNode(node, 'a');
    t.teardown(() => a.view.stop());
    const b = await heldNode(node, 'b');
    t.teardown(() => b.view.stop());
    const live = await followIntegrations({ bus: await node() });
    t.teardown(() => live.stop());
    // Both sum the same records; a sums fewer and lands first; a sums fewer and lands last.
    for (const round of ['same sum', 'the smaller sum first', 'the smaller sum last'] as const) {
      await tally.deliver(arrivals);
      const goA = await a.summed();
      if (round !== 'same sum') await tally.deliver(arrivals);
      const goB = await b.summed();
      const before = await rollupThroughs(bus);
      const [first, second] = round === 'the smaller sum last' ? [goB, goA] : [goA, goB];
      const outcomes = [await first(), await second()];
      t.match(outcomes, [{ outcome: 'compacted' }, { outcome: 'compacted' }], `${round}: both compacted`);
      const landed = (await rollupThroughs(bus)).slice(before.length);
      const [throughA, throughB] = round === 'the smaller sum last' ? [landed[1], landed[0]] : landed;
      t.equal(landed.length, 2, `${round}: both rollups landed`);
      if (round === 'same sum') t.equal(throughA, throughB, `${round}: through the same sequence`);
      else t.ok(throughA! < throughB!, `${round}: a's rollup sums fewer records`);
      for (const [who, v] of [
        ['a', a.view],
        ['b', b.view],
        ['a node folding live', live],
      ] as const)
        await sameCounts(t, v, tally, `${round}: ${who}`);
      const fresh = await followIntegrations({ bus: await node() });
      await sameCounts(t, fresh, tally, `${round}: a node starting from zero`);
      await fresh.stop();
    }
  });

  t.test(`${name}: a store holding rollups of the conditional release reads the same counts`, async (t) => {
    const { node, bus, tally, arrivals } = await writer(engine, t);
    // As that release appended them: the record right after what they sum, the newest without `through`.
    const oldRollup = async (withThrough: boolean): Promise<void> => {
      const { lastSeq } = await bus.streamInfo(Streams.Integrations);
      const record = {
        type: 'arrivals_rollup',
        ...(withThrough ? { through: lastSeq } : {}),
        surfaces: Object.fromEntries(tally.counts),
        at: new Date(tally.now()).toISOString(),
        node: 'old',
      };
      const data = encoder.encode(JSON.stringify(record));
      const ack = await bus.publish(Subjects.integration('arrivals', 'rollup'), data, {
        expectedLastSeq: lastSeq,
      });
      await bus.purgeBelow(Streams.Integrations, ack.seq, Subjects.integrationArrivals);
    };
    for (let i = 0; i < 3; i++) await tally.deliver(arrivals);
    await oldRollup(true);
    await tally.deliver(arrivals);
    await oldRollup(false);
    await tally.deliver(arrivals);
    const view = await followIntegrations({ bus: await node(), rollups: rollups('n1') });
    t.teardown(() => view.stop());
    await sameCounts(t, view, tally, 'a node booting on the old store');
    t.match(await view.rollups!.compact(), { outcome: 'compacted' }, 'and compacting on it');
    await tally.deliver(arrivals);
    await sameCounts(t, view, tally, 'that node after its compaction');
    const fresh = await followIntegrations({ bus: await node() });
    t.teardown(() => fresh.stop());
    await sameCounts(t, fresh, tally, 'a node starting from zero after');
  });

  t.test(
    `${name}: after compactions on a busy stream, a replay from the start equals the live fold`,
    async (t) => {
      const { node, tally, arrivals } = await writer(engine, t);
      const checkpoints = openCheckpoints(':memory:');
      t.teardown(() => checkpoints.close());
      const live = await followIntegrations({ bus: await node() });
      t.teardown(() => live.stop());
      await tally.deliver(arrivals);
      const stream = sustained(tally, arrivals);
      const view = await followIntegrations({
        bus: beforeRollups(await node(), stream.next),
        rollups: rollups('n1'),
      });
      t.teardown(() => view.stop());
      t.match(await view.rollups!.compact(), { outcome: 'compacted' });
      // A node that stops between two compactions, with arrival records above the first rollup in its checkpoint.
      const stopped = await followIntegrations({ bus: await node(), checkpoints });
      await stopped.caughtUp(10_000);
      await stopped.stop();
      t.match(await view.rollups!.compact(), { outcome: 'compacted' });
      await stream.stop();
      const wanted = await kept(live);
      t.ok(wanted.since.length > 0, 'arrival records landed after the newest rollup began its sum');
      t.same(wanted.counts, Object.fromEntries(tally.counts), 'the live fold counts every arrival once');
      t.same(await kept(view), wanted, 'the compacting node');
      const fresh = await followIntegrations({ bus: await node() });
      t.teardown(() => fresh.stop());
      t.same(await kept(fresh), wanted, 'a node replaying from the start');
      await live.running.rebuild();
      t.same(await kept(live), wanted, 'the live node rebuilt from the start');
      const back = await followIntegrations({ bus: await node(), checkpoints });
      t.teardown(() => back.stop());
      t.equal(back.running.boot.from, 'checkpoint');
      t.same(await kept(back), wanted, 'the node back from its checkpoint');
    },
  );
}

onBothEngines(busyTests);
