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
