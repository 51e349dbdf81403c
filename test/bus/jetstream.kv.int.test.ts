/**
 * KV arbitration on one real server, with losers stored on purpose (as nats-server #4320 stores them on
 * a cluster): every read path ignores them, writers building on them lose, and a reader that has never
 * seen a key judges a trimmed history as a reader that saw it all.
 */
import t from 'tap';
import { KvConflictError, type Kv, type KvEntry } from '../../bus/index.js';
import { openJetStreamBus } from '../../bus/jetstream/index.js';
import { startNatsServer } from '../harness/nats-server.js';

const enc = new TextEncoder();
const dec = new TextDecoder();
const server = await startNatsServer({ t });

/** Stores a conditional record claiming `parent` without any check: a loser when the parent is stale. */
async function storeClaim(
  bus: Awaited<ReturnType<typeof openJetStreamBus>>,
  bucket: string,
  key: string,
  parent: number,
  value: string,
) {
  return (
    await bus.publish(`$KV.${bucket}.${key}`, enc.encode(value), {
      headers: { 'Svc-Kv-Parent': String(parent) },
    })
  ).seq;
}

t.test('a stored loser is ignored by get, history, keys and watch, and cannot be built on', async (t) => {
  const bus = await openJetStreamBus({ url: server.url });
  t.teardown(() => bus.close());
  const kv = await bus.kv({ name: 'arb' });
  const base = await kv.create('lease', enc.encode('base'));
  const winner = await kv.update('lease', enc.encode('winner'), base);
  const loser = await storeClaim(bus, 'arb', 'lease', base, 'loser');
  const lateCreate = await storeClaim(bus, 'arb', 'other', 0, 'first');
  await storeClaim(bus, 'arb', 'other', 0, 'second');

  const fresh = await openJetStreamBus({ url: server.url });
  t.teardown(() => fresh.close());
  for (const reader of [kv, await fresh.kv({ name: 'arb' })]) {
    const entry = (await reader.get('lease')) as KvEntry;
    t.same([entry.revision, dec.decode(entry.value)], [winner, 'winner'], 'get answers the winner');
    t.same(
      (await reader.history('lease')).map((e) => e.revision),
      [base, winner],
      'history leaves the loser out',
    );
    t.equal(dec.decode(((await reader.get('other')) as KvEntry).value), 'first', 'the first create wins');
    t.same(await reader.keys(), ['lease', 'other']);
  }

  const seen: string[] = [];
  let wake: (() => void) | null = null;
  const watch = await kv.watch((e) => {
    seen.push(`${e.key}@${e.revision}`);
    wake?.();
  });
  t.same(seen, [`lease@${winner}`, `other@${lateCreate}`], 'initial values are the winners');
  const reported = new Promise<void>((resolve) => (wake = resolve));
  await storeClaim(bus, 'arb', 'lease', base, 'another loser');
  const next = await kv.update('lease', enc.encode('next'), winner);
  await reported;
  while (!seen.includes(`lease@${next}`)) await new Promise<void>((resolve) => (wake = resolve));
  t.same(seen.slice(2), [`lease@${next}`], 'the watcher skipped the loser');
  await watch.stop();

  await t.rejects(
    kv.update('lease', enc.encode('x'), loser),
    KvConflictError,
    'a loser revision is never current',
  );
  t.ok(loser > winner);
});

t.test('a new watcher of many claimed keys reports each winner once and never a loser', async (t) => {
  const bus = await openJetStreamBus({ url: server.url });
  t.teardown(() => bus.close());
  const kv = await bus.kv({ name: 'claims' });
  const winners = new Map<string, number>();
  // More keys whose newest record is a claim than a watch reads one by one: their histories are read in bulk.
  const keys = Array.from({ length: 200 }, (_, i) => `c.${i}`);
  await Promise.all(
    keys.map(async (key, i) => {
      const base = await kv.create(key, enc.encode('base'));
      if (i % 2 === 0) {
        winners.set(key, base);
        await storeClaim(bus, 'claims', key, 0, 'late create');
        return;
      }
      winners.set(key, await kv.update(key, enc.encode('winner'), base));
      if (i % 3 === 0) await storeClaim(bus, 'claims', key, base, 'loser');
    }),
  );
  await kv.put('plain', enc.encode('p'));
  winners.set('plain', (await kv.get('plain'))?.revision ?? 0);

  const fresh = await openJetStreamBus({ url: server.url });
  t.teardown(() => fresh.close());
  const seen: string[] = [];
  const watch = await (await fresh.kv({ name: 'claims' })).watch((e) => seen.push(`${e.key}@${e.revision}`));
  await watch.stop();
  t.same(
    [...seen].sort(),
    [...winners].map(([key, rev]) => `${key}@${rev}`).sort(),
    'initial values are the winners',
  );
});

t.test('a reader that never saw a key judges its trimmed history as the writer does', async (t) => {
  const bus = await openJetStreamBus({ url: server.url });
  t.teardown(() => bus.close());
  const kv = await bus.kv({ name: 'trim', history: 8 });
  let rev = await kv.create('k', enc.encode('0'));
  for (let i = 1; i <= 20; i += 1) {
    // Every few rounds a stale claim lands right after the winner, as a raced writer's would.
    const previous = rev;
    rev = await kv.update('k', enc.encode(String(i)), rev);
    if (i % 3 === 0) await storeClaim(bus, 'trim', 'k', previous, `stale-${i}`);
    const fresh = await openJetStreamBus({ url: server.url });
    const seen = await (await fresh.kv({ name: 'trim', history: 8 })).get('k');
    await fresh.close();
    t.equal(seen?.revision, rev, `round ${i}: a new reader agrees`);
  }
  t.equal(dec.decode(((await kv.get('k')) as KvEntry).value), '20');
});

t.test('reopening a bucket with other history and TTL applies them', async (t) => {
  const bus = await openJetStreamBus({ url: server.url });
  t.teardown(() => bus.close());
  const first: Kv = await bus.kv({ name: 'resized', history: 4 });
  for (let i = 0; i < 6; i += 1) await first.put('k', enc.encode(String(i)));
  t.equal((await first.history('k')).length, 4);
  const second = await bus.kv({ name: 'resized', history: 10, ttlMs: 60_000 });
  for (let i = 0; i < 6; i += 1) await second.put('k', enc.encode(String(i)));
  t.equal((await second.history('k')).length, 10, 'the larger history holds');
});
