/**
 * The runner's seed (projection.ts `seed`): on a stream whose first records were removed, a seeded
 * projection starts from its seed and folds what follows — at boot, on a rebuild, and in place of a
 * checkpoint below the removal; a seed that does not reach the first record kept is not used; a
 * projection without a seed folds what the stream holds and keeps its checkpoint, as before.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { openMemoryBus } from '../../../bus/memory/index.js';
import { openCheckpoints, runProjection, type Projection } from '../../../projections/index.js';

type Sum = { total: number; seen: number[] };
const enc = new TextEncoder();
const dec = new TextDecoder();

const summing = (seed?: Projection<Sum>['seed']): Projection<Sum> => ({
  name: 'sum',
  version: 1,
  stream: 'S',
  init: () => ({ total: 0, seen: [] }),
  apply: (state, m) => {
    state.total += Number(dec.decode(m.data));
    state.seen.push(m.seq);
  },
  checkpoint: { save: (s) => s, load: (v) => v as Sum },
  ...(seed ? { seed } : {}),
});

t.test('a seeded projection starts from its seed on a trimmed stream', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-seed-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const bus = await openMemoryBus({});
  t.teardown(() => bus.close());
  await bus.ensureStream({ name: 'S', subjects: ['s.>'] });
  for (let i = 1; i <= 6; i++) await bus.publish('s.n', enc.encode(String(i)));
  const checkpoints = openCheckpoints(dir);
  t.teardown(() => checkpoints.close());
  for (const name of ['sum', 'seeded']) {
    const early = await runProjection({ bus, projection: { ...summing(), name }, checkpoints });
    await early.stop();
    t.equal(checkpoints.load(name)?.seq, 6);
  }
  for (let i = 7; i <= 10; i++) await bus.publish('s.n', enc.encode(String(i)));
  await bus.purgeBelow('S', 9);

  // The sum of 1..8 is what a snapshot at 8 holds.
  const asked: number[] = [];
  const seed: Projection<Sum>['seed'] = async (firstSeq) => {
    asked.push(firstSeq);
    return { state: { total: 36, seen: [8] }, seq: 8 };
  };
  const seeded = await runProjection({ bus, projection: { ...summing(seed), name: 'seeded' }, checkpoints });
  t.teardown(() => seeded.stop());
  t.equal(seeded.boot.from, 'snapshot', 'the checkpoint at 6 lies below the trim: the seed is used');
  t.same(seeded.state(), { total: 55, seen: [8, 9, 10] });
  t.same(asked, [9]);
  await seeded.rebuild();
  t.equal(seeded.boot.from, 'snapshot', 'a rebuild starts from the seed too');
  t.equal(seeded.state().total, 55);

  const short = await runProjection({
    bus,
    projection: { ...summing(async () => ({ state: { total: 28, seen: [7] }, seq: 7 })), name: 'short' },
  });
  t.teardown(() => short.stop());
  t.equal(short.boot.from, 'zero', 'a seed below the first record kept is not used');
  t.same(short.state().seen, [9, 10]);

  const plain = await runProjection({ bus, projection: summing(), checkpoints });
  t.teardown(() => plain.stop());
  t.equal(plain.boot.from, 'checkpoint', 'an unseeded projection keeps its checkpoint');
  t.same(plain.state().seen, [1, 2, 3, 4, 5, 6, 9, 10]);
});
