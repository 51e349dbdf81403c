import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { KvConflictError } from '../../bus/index.js';
import { openMemoryBus } from '../../bus/memory/index.js';

const enc = new TextEncoder();
const dec = new TextDecoder();

t.test('200 trials of 8 concurrent updates on one revision: exactly one winner each', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-membus-race-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const bus = await openMemoryBus({ storeDir: dir });
  t.teardown(() => bus.close());
  const kv = await bus.kv({ name: 'race', history: 64 });
  const failures: string[] = [];
  for (let trial = 0; trial < 200; trial += 1) {
    const key = `k${trial}`;
    const base = await kv.create(key, enc.encode('base'));
    // Half the trials race on a key with history, so the winner is not simply the first write.
    const expected = trial % 2 === 0 ? base : await kv.update(key, enc.encode('again'), base);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 8 }, (_, w) => kv.update(key, enc.encode(`w${w}`), expected)),
    );
    const winners = outcomes.flatMap((o, w) => (o.status === 'fulfilled' ? [w] : []));
    const losersTyped = outcomes.every(
      (o) =>
        o.status === 'fulfilled' ||
        (o.reason instanceof KvConflictError && o.reason.currentRevision > expected),
    );
    const got = await kv.get(key);
    if (winners.length !== 1) failures.push(`trial ${trial}: ${winners.length} winners`);
    else if (!losersTyped) failures.push(`trial ${trial}: a loser was not refused with the current revision`);
    else if (!got || dec.decode(got.value) !== `w${winners[0]}`)
      failures.push(`trial ${trial}: get disagrees`);
  }
  t.same(failures, [], 'every trial had one winner, typed losers, and get agreed with the winner');
});

t.test('racing creates of one key: exactly one succeeds', async (t) => {
  const bus = await openMemoryBus({});
  t.teardown(() => bus.close());
  const kv = await bus.kv({ name: 'race' });
  for (let trial = 0; trial < 50; trial += 1) {
    const outcomes = await Promise.allSettled(
      Array.from({ length: 8 }, (_, w) => kv.create(`c${trial}`, enc.encode(`w${w}`))),
    );
    t.equal(outcomes.filter((o) => o.status === 'fulfilled').length, 1, `trial ${trial}`);
  }
});
