/** Bus contract, part: kv. Registered by busContract (contract.ts). */
import { BusClosedError, InvalidNameError, KvConflictError, type KvEntry } from '../../bus/index.js';
import { enc, text, eventually, inbox, type WithBus } from './contract-helpers.js';
export function registerKv(withBus: WithBus, engine: string): void {
  withBus('kv get, put, create conflict, update conflict, delete and keys', async ({ bus }, id, t) => {
    const kv = await bus.kv({ name: `kv${id}` });
    t.equal(await kv.get('a'), null);
    const r1 = await kv.create('a', enc.encode('1'));
    await t.rejects(kv.create('a', enc.encode('x')), KvConflictError);
    const r2 = await kv.update('a', enc.encode('2'), r1);
    t.ok(r2 > r1);
    await t.rejects(kv.update('a', enc.encode('3'), r1), KvConflictError);
    const entry = (await kv.get('a')) as KvEntry;
    t.same([text(entry.value), entry.revision, entry.operation], ['2', r2, 'put']);
    await kv.put('b.c', enc.encode('x'));
    t.same(await kv.keys(), ['a', 'b.c']);
    t.same(await kv.keys('b.*'), ['b.c']);
    await t.rejects(kv.delete('a', { expectedRevision: r1 }), KvConflictError);
    await kv.delete('a', { expectedRevision: r2 });
    t.equal(await kv.get('a'), null);
    t.same(await kv.keys(), ['b.c']);
    await t.rejects(
      kv.update('a', enc.encode('x'), r2),
      KvConflictError,
      'a deleted key has no revision to update',
    );
    t.ok((await kv.create('a', enc.encode('again'))) > r2, 'create allowed after delete');
    await t.rejects(async () => kv.get('bad key'), InvalidNameError);
  });

  withBus('kv history lists the key records oldest first, deletes included', async ({ bus }, id, t) => {
    const kv = await bus.kv({ name: `kv${id}`, history: 5 });
    await kv.put('k', enc.encode('1'));
    await kv.put('k', enc.encode('2'));
    await kv.delete('k');
    await kv.put('k', enc.encode('3'));
    const history = await kv.history('k');
    t.same(
      history.map((e) => [e.operation, e.operation === 'put' ? text(e.value) : '']),
      [
        ['put', '1'],
        ['put', '2'],
        ['delete', ''],
        ['put', '3'],
      ],
    );
    for (let i = 4; i <= 9; i += 1) await kv.put('k', enc.encode(String(i)));
    t.equal((await kv.history('k')).length, 5, 'history keeps the configured number of records');
  });

  withBus('kv watch sends current values first, then every change in order', async ({ bus }, id, t) => {
    const kv = await bus.kv({ name: `kv${id}` });
    await kv.put('x', enc.encode('1'));
    await kv.put('other', enc.encode('o'));
    const seen = inbox<string>();
    const sub = await kv.watch((e) => seen.push(`${e.key}:${e.operation}:${text(e.value)}`), { key: 'x' });
    t.equal(await seen.next(), 'x:put:1');
    await kv.put('other', enc.encode('p'));
    await kv.put('x', enc.encode('2'));
    await kv.delete('x');
    t.same([await seen.next(), await seen.next()], ['x:put:2', 'x:delete:']);
    await sub.stop();
  });

  withBus('kv keys expire after the bucket ttl', async ({ bus }, id, t) => {
    const kv = await bus.kv({ name: `kv${id}`, ttlMs: 1_000 });
    await kv.put('short', enc.encode('lived'));
    t.ok(await kv.get('short'));
    t.ok(await eventually(async () => (await kv.get('short')) === null, 6_000), 'expired');
    t.same(await kv.keys(), []);
    t.ok(await kv.create('short', enc.encode('again')), 'an expired key can be created again');
  });

  withBus(
    'eight concurrent updates on the same revision: exactly one wins and every get agrees',
    async ({ bus }, id, t) => {
      const kv = await bus.kv({ name: `kv${id}`, history: 64 });
      for (let trial = 0; trial < 10; trial += 1) {
        const key = `race-${trial}`;
        const base = await kv.create(key, enc.encode('base'));
        const outcomes = await Promise.allSettled(
          Array.from({ length: 8 }, (_, w) => kv.update(key, enc.encode(`w${w}`), base)),
        );
        const winners = outcomes.flatMap((o, w) => (o.status === 'fulfilled' ? [w] : []));
        t.equal(winners.length, 1, `trial ${trial}: one winner`);
        t.ok(
          outcomes.every((o) => o.status === 'fulfilled' || o.reason instanceof KvConflictError),
          'losers get KvConflictError',
        );
        t.equal(text(((await kv.get(key)) as KvEntry).value), `w${winners[0]}`);
      }
    },
  );

  withBus(
    'positions of durable consumers, pending redeliveries, sequences and kv revisions survive a reopen',
    async (fx, id, t) => {
      if (!fx.reopen) {
        t.pass(`${engine}: persistence is the server's; covered by its own restart test`);
        return;
      }
      let bus = fx.bus;
      await bus.ensureStream({ name: `S${id}`, subjects: [`c${id}.>`] });
      for (let i = 1; i <= 3; i += 1) await bus.publish(`c${id}.a`, enc.encode(String(i)));
      const kv = await bus.kv({ name: `kv${id}` });
      const rev = await kv.put('k', enc.encode('v'));
      const spec = { durable: `d${id}`, ackWaitMs: 500 };
      const first = inbox<number>();
      const sub = await bus.consume(`S${id}`, spec, async (m) => {
        first.push(m.seq);
        if (m.seq === 3) throw new Error('not acknowledged before the restart');
      });
      t.same([await first.next(), await first.next(), await first.next()], [1, 2, 3]);
      await sub.stop();
      bus = await fx.reopen();
      t.equal((await bus.publish(`c${id}.a`, enc.encode('4'))).seq, 4, 'sequence continues');
      const again = inbox<number>();
      const sub2 = await bus.consume(`S${id}`, spec, async (m) => again.push(m.seq));
      const seen: number[] = [];
      while (!seen.includes(3) || !seen.includes(4)) seen.push(await again.next());
      t.same(
        seen.filter((seq) => seq < 3),
        [],
        'acknowledged messages are not redelivered; the unacknowledged one is',
      );
      await sub2.stop();
      const kv2 = await bus.kv({ name: `kv${id}` });
      t.equal((await kv2.get('k'))?.revision, rev);
      t.ok((await kv2.put('k', enc.encode('w'))) > rev, 'revisions continue');
    },
  );

  withBus('kv watch without initial values sees only later changes', async ({ bus }, id, t) => {
    const kv = await bus.kv({ name: `kv${id}` });
    await kv.put('a.one', enc.encode('old'));
    const seen = inbox<string>();
    const sub = await kv.watch((e) => seen.push(`${e.key}:${text(e.value)}`), { key: 'a.>', initial: false });
    await kv.put('b', enc.encode('elsewhere'));
    await kv.put('a.two', enc.encode('new'));
    t.equal(await seen.next(), 'a.two:new');
    await sub.stop();
    t.same(await kv.keys('a.>'), ['a.one', 'a.two']);
  });

  withBus(
    'kv watch of a few thousand keys: each live key once before it resolves, then every change racing the read, in order',
    async ({ bus }, id, t) => {
      const kv = await bus.kv({ name: `kv${id}` });
      const keys = Array.from({ length: 3_000 }, (_, i) => `k.${i}`);
      for (let i = 0; i < keys.length; i += 100) {
        await Promise.all(keys.slice(i, i + 100).map((key) => kv.put(key, enc.encode('0'))));
      }
      await kv.put('gone', enc.encode('x'));
      await kv.delete('gone');
      // Writers change the first 300 keys (some deleted and written again) before, during and after the read.
      const raced = keys.slice(0, 300);
      let resolved = false;
      let roundsAfter = 0;
      const race = (async () => {
        for (let round = 1; round <= 40 && roundsAfter < 2; round += 1) {
          if (resolved) roundsAfter += 1;
          await Promise.all(
            raced.map((key, i) =>
              i % 10 === 0 && round % 2 === 0 ? kv.delete(key) : kv.put(key, enc.encode(String(round))),
            ),
          );
        }
      })();
      const seen = new Map<string, Array<{ revision: number; operation: string }>>();
      const initial: KvEntry[] = [];
      let watchResolved = false;
      const sub = await kv.watch((e) => {
        if (!watchResolved) initial.push(e);
        seen.set(e.key, [...(seen.get(e.key) ?? []), { revision: e.revision, operation: e.operation }]);
      });
      watchResolved = true;
      resolved = true;
      await race;
      // A last change after the read, so each raced key's newest record is one the watch must report live.
      await Promise.all(raced.map((key) => kv.put(key, enc.encode('last'))));

      t.ok(
        initial.every(
          (e, i) => e.operation === 'put' && (i === 0 || (initial[i - 1] as KvEntry).revision < e.revision),
        ),
        'initial values are puts, oldest revision first',
      );
      const initialKeys = initial.map((e) => e.key);
      t.equal(new Set(initialKeys).size, initialKeys.length, 'no key twice before the watch resolves');
      const untouched = keys.slice(raced.length);
      t.ok(
        untouched.every((key) => seen.get(key)?.length === 1 && initialKeys.includes(key)),
        'every key written only before the watch is reported once, before it resolves',
      );
      const neverDeleted = raced.filter((_, i) => i % 10 !== 0);
      t.ok(
        neverDeleted.every((key) => initialKeys.includes(key)),
        'a key changed during the read is reported too',
      );
      t.notOk(initialKeys.includes('gone'), 'a deleted key is not an initial value');

      const histories = new Map<string, Array<{ revision: number; operation: string }>>();
      for (const key of raced) {
        histories.set(
          key,
          (await kv.history(key)).map((e) => ({ revision: e.revision, operation: e.operation })),
        );
      }
      const caughtUp = () =>
        raced.every((key) => seen.get(key)?.at(-1)?.revision === histories.get(key)?.at(-1)?.revision);
      t.ok(await eventually(async () => caughtUp(), 10_000), "the watch reaches every key's last record");
      await sub.stop();
      const wrong = raced.filter((key) => {
        const history = histories.get(key) ?? [];
        const got = seen.get(key) ?? [];
        const from = history.length - got.length;
        // What the watch reported is the key's records from its state at the initial point on: no gap, no
        // repeat; a key not reported initially was deleted at that point.
        const suffix = from >= 0 && JSON.stringify(history.slice(from)) === JSON.stringify(got);
        const start = initialKeys.includes(key) || from === 0 || history[from - 1]?.operation === 'delete';
        return !suffix || !start;
      });
      t.same(wrong, [], 'every raced key: its state at the read, then each later change once, in order');
    },
  );

  withBus('a closed bus refuses further calls', async (fx, id, t) => {
    const bus = fx.bus;
    await bus.ensureStream({ name: `S${id}`, subjects: [`c${id}.>`] });
    const kv = await bus.kv({ name: `kv${id}` });
    await bus.close();
    await t.rejects(async () => bus.publish(`c${id}.a`, enc.encode('1')), BusClosedError);
    await t.rejects(async () => bus.streamInfo(`S${id}`), BusClosedError);
    await t.rejects(async () => kv.put('k', enc.encode('1')), BusClosedError);
    await t.rejects(async () => bus.request(`r${id}.x`, enc.encode('1'), { timeoutMs: 500 }), BusClosedError);
    t.throws(() => bus.subscribe(`c${id}.>`, () => undefined), BusClosedError);
  });
}
