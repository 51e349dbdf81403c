/**
 * A spend record stamped ahead of the clock is placed at its arrival (spec ordering rule 5): the time the
 * stream stored it. A node that boots later — by replay or from a checkpoint, its clock far ahead — places
 * it where the live node did, so the 24 h window does not give it a fresh day and the month does not move.
 */
import t from 'tap';
import type { Test } from 'tap';
import { ensureCatalogue, openMemoryBus, Subjects, type Bus } from '../../../bus/index.js';
import {
  openCheckpoints,
  readModelProjections,
  ReadModels,
  runProjection,
  type CheckpointStore,
} from '../../../projections/index.js';
import { ledgerEntries } from '../../../projections/tokens/tokens.ledger.js';
import { until } from '../../harness/until.js';
import { tempDir } from '../fixtures/events.js';
import { companyDoc, spend } from '../fixtures/readmodels.js';

const hour = 3_600_000;
// 21:00 in Berlin (the company's zone) on the last day of November.
const arrival = Date.parse('2026-11-30T20:00:00Z');
const encode = (o: unknown) => new TextEncoder().encode(JSON.stringify(o));

async function node(t: Test, bus: Bus, clock: () => number, checkpoints?: CheckpointStore) {
  const models = new ReadModels({ now: clock });
  models.setCompany(companyDoc, 'rev-1');
  const projections = readModelProjections(models, clock);
  const opts = { bus, ...(checkpoints ? { checkpoints } : {}) };
  const ledger = await runProjection({ ...opts, projection: projections.tokens });
  const window = await runProjection({ ...opts, projection: projections.spendWindow });
  const stop = async () => {
    await ledger.stop();
    await window.stop();
  };
  t.teardown(stop);
  return { models, ledger, window, stop };
}

const placed = (models: ReadModels): number[] => ledgerEntries(models.ledger, 0).map((e) => e.ms);

t.test('a spend record stamped ahead is placed at its arrival by a node started later', async (t) => {
  const busClock = { now: arrival };
  const bus = await openMemoryBus({ clock: () => busClock.now });
  await ensureCatalogue(bus);
  t.teardown(() => bus.close());
  const checkpoints = openCheckpoints(tempDir(t));
  t.teardown(() => checkpoints.close());

  const live = await node(t, bus, () => arrival, checkpoints);
  const ahead = spend({ id: 'spend-ahead', timestamp: new Date(arrival + 3 * 24 * hour).toISOString() });
  await bus.publish(Subjects.spend('llm'), encode(ahead), { msgId: ahead.id });
  await until(
    () => Promise.resolve(live.models.window.size),
    (n) => n === 1,
  );
  t.same(placed(live.models), [arrival], 'the live node places it at its arrival');
  t.equal(live.models.budgets().org.used, 15, 'counted in November, the month it arrived in');
  await live.stop();

  // A day and an hour on: past the arrival's 24 h, and December in Berlin.
  const later = arrival + 25 * hour;
  for (const [how, store] of [
    ['by replay', undefined],
    ['from a checkpoint', checkpoints],
  ] as const) {
    const booted = await node(t, bus, () => later, store);
    t.equal(booted.ledger.boot.from, store ? 'checkpoint' : 'zero', how);
    t.same(placed(booted.models), [arrival], `${how}: placed at its arrival, as the live node did`);
    t.equal(booted.models.window.size, 0, `${how}: aged out of the 24 h window from its arrival`);
    t.equal(booted.models.budgets().org.used, 0, `${how}: not counted in December`);
    await booted.stop();
  }
});
