/**
 * The bus contract: one list of behaviours every engine must show. Each engine's test file calls
 * `busContract` with a way to open a fresh bus; the same named tests run for each, so the count per
 * engine is equal by construction. Names are random per test so one server can serve them all.
 */
import { randomBytes } from 'node:crypto';
import type { Test } from 'tap';
import {
  BusClosedError,
  InvalidNameError,
  KvConflictError,
  NoRespondersError,
  NoStreamForSubjectError,
  RedeliverError,
  RemoteError,
  RequestTimeoutError,
  TerminateError,
  WrongLastSequenceError,
  type Bus,
  type DeliveredMessage,
  type KvEntry,
  type StoredMessage,
} from '../../bus/index.js';

export interface BusFixture {
  readonly bus: Bus;
  /** Closes the bus and opens it again on the same store (engines that persist). */
  readonly reopen?: () => Promise<Bus>;
  cleanup(): Promise<void>;
}

const enc = new TextEncoder();
const dec = new TextDecoder();
const text = (data: Uint8Array): string => dec.decode(data);
const unique = (): string => randomBytes(4).toString('hex');

/** Resolves when `check` holds, polling briefly; for effects with no event to wait on (expiry). */
async function eventually(check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return check();
}

async function collect(iterable: AsyncIterable<StoredMessage>): Promise<StoredMessage[]> {
  const out: StoredMessage[] = [];
  for await (const msg of iterable) out.push(msg);
  return out;
}

/** A queue of delivered items a test can await one by one. */
function inbox<T>() {
  const items: T[] = [];
  const waiters: Array<(item: T) => void> = [];
  return {
    push(item: T) {
      const waiter = waiters.shift();
      if (waiter) waiter(item);
      else items.push(item);
    },
    next(timeoutMs = 5_000): Promise<T> {
      const item = items.shift();
      if (item !== undefined) return Promise.resolve(item);
      return new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('nothing arrived in time')), timeoutMs);
        waiters.push((value) => {
          clearTimeout(timer);
          resolve(value);
        });
      });
    },
  };
}

export function busContract(t: Test, engine: string, open: () => Promise<BusFixture>): void {
  /** Runs `body` with a fresh fixture and a unique stream name, always cleaning up. */
  const withBus = (name: string, body: (fx: BusFixture, id: string, t: Test) => Promise<void>) =>
    t.test(name, async (t) => {
      const fx = await open();
      try {
        await body(fx, unique(), t);
      } finally {
        await fx.cleanup();
      }
    });

  t.comment(`bus contract: ${engine}`);

  withBus(
    'publish acknowledges with increasing sequences and streamInfo counts them',
    async ({ bus }, id, t) => {
      await bus.ensureStream({ name: `S${id}`, subjects: [`c${id}.>`] });
      const a = await bus.publish(`c${id}.x`, enc.encode('1'));
      const b = await bus.publish(`c${id}.y`, enc.encode('2'));
      t.same([a.seq, b.seq, a.duplicate], [1, 2, false]);
      t.match(await bus.streamInfo(`S${id}`), { name: `S${id}`, firstSeq: 1, lastSeq: 2, messages: 2 });
      const got = await bus.getMessage(`S${id}`, 2);
      t.equal(got && text(got.data), '2');
      t.equal(await bus.getMessage(`S${id}`, 9), null);
    },
  );

  withBus(
    'a repeated message id inside the window is acknowledged as a duplicate and not stored',
    async ({ bus }, id, t) => {
      await bus.ensureStream({ name: `S${id}`, subjects: [`c${id}.>`] });
      const first = await bus.publish(`c${id}.x`, enc.encode('a'), { msgId: 'm-1' });
      const again = await bus.publish(`c${id}.x`, enc.encode('b'), { msgId: 'm-1' });
      t.same([again.seq, again.duplicate], [first.seq, true]);
      t.equal((await bus.streamInfo(`S${id}`)).messages, 1);
    },
  );

  withBus(
    'expected last sequence and expected last subject sequence refuse with a typed error',
    async ({ bus }, id, t) => {
      await bus.ensureStream({ name: `S${id}`, subjects: [`c${id}.>`] });
      await bus.publish(`c${id}.x`, enc.encode('1'));
      await bus.publish(`c${id}.y`, enc.encode('2'));
      await t.rejects(
        bus.publish(`c${id}.x`, enc.encode('3'), { expectedLastSeq: 1 }),
        WrongLastSequenceError,
      );
      t.equal((await bus.publish(`c${id}.x`, enc.encode('3'), { expectedLastSeq: 2 })).seq, 3);
      await t.rejects(
        bus.publish(`c${id}.y`, enc.encode('4'), { expectedLastSubjectSeq: 1 }),
        WrongLastSequenceError,
      );
      t.equal((await bus.publish(`c${id}.y`, enc.encode('4'), { expectedLastSubjectSeq: 2 })).seq, 4);
      t.equal((await bus.publish(`c${id}.z`, enc.encode('5'), { expectedLastSubjectSeq: 0 })).seq, 5);
      const last = await bus.lastMessage(`S${id}`, `c${id}.y`);
      t.equal(last && text(last.data), '4');
    },
  );

  withBus(
    'publishing to a subject no stream captures, or an invalid subject, is refused',
    async ({ bus }, id, t) => {
      await t.rejects(bus.publish(`nowhere${id}.x`, enc.encode('1')), NoStreamForSubjectError);
      await bus.ensureStream({ name: `S${id}`, subjects: [`c${id}.>`] });
      await t.rejects(async () => bus.publish(`c${id}..x`, enc.encode('1')), InvalidNameError);
      await t.rejects(async () => bus.publish(`c${id}.*`, enc.encode('1')), InvalidNameError);
      await t.rejects(
        async () => bus.ensureStream({ name: 'bad name', subjects: ['q.>'] }),
        InvalidNameError,
      );
    },
  );

  withBus('wildcards route: * matches one token, > the rest', async ({ bus }, id, t) => {
    await bus.ensureStream({ name: `A${id}`, subjects: [`w${id}.*.inbox`] });
    await bus.ensureStream({ name: `B${id}`, subjects: [`e${id}.>`] });
    t.equal((await bus.publish(`w${id}.ada.inbox`, enc.encode('1'))).stream, `A${id}`);
    t.equal((await bus.publish(`e${id}.turn.completed`, enc.encode('2'))).stream, `B${id}`);
    await t.rejects(bus.publish(`w${id}.ada.outbox`, enc.encode('3')), NoStreamForSubjectError);
    const seen = inbox<string>();
    const sub = bus.subscribe(`e${id}.*.done`, (m) => seen.push(m.subject));
    await bus.publish(`e${id}.turn.started`, enc.encode('x'));
    await bus.publish(`e${id}.turn.done`, enc.encode('y'));
    t.equal(await seen.next(), `e${id}.turn.done`);
    await sub.stop();
  });

  withBus(
    'replay reads in order from a sequence, from a time, and by subject filter',
    async ({ bus }, id, t) => {
      await bus.ensureStream({ name: `S${id}`, subjects: [`c${id}.>`] });
      for (let i = 1; i <= 5; i += 1)
        await bus.publish(`c${id}.${i % 2 === 0 ? 'even' : 'odd'}`, enc.encode(String(i)));
      const all = await collect(bus.replay(`S${id}`));
      t.same(
        all.map((m) => m.seq),
        [1, 2, 3, 4, 5],
      );
      t.same(
        (await collect(bus.replay(`S${id}`, { fromSeq: 4 }))).map((m) => text(m.data)),
        ['4', '5'],
      );
      t.same(
        (await collect(bus.replay(`S${id}`, { subject: `c${id}.even` }))).map((m) => m.seq),
        [2, 4],
      );
      const since = new Date((all[2] as StoredMessage).time.getTime());
      const fromTime = await collect(bus.replay(`S${id}`, { since }));
      t.equal(
        fromTime[0]?.seq !== undefined && fromTime[0].seq <= 3,
        true,
        'starts at or before the message stored at that time',
      );
      t.equal(fromTime[fromTime.length - 1]?.seq, 5);
      t.same(await collect(bus.replay(`S${id}`, { since: new Date(Date.now() + 60_000) })), []);
      t.same(
        (await collect(bus.replay(`S${id}`, { fromSeq: 2, toSeq: 3 }))).map((m) => m.seq),
        [2, 3],
      );
    },
  );

  withBus(
    'follow delivers the backlog from a position, then the live tail, in order',
    async ({ bus }, id, t) => {
      await bus.ensureStream({ name: `S${id}`, subjects: [`c${id}.>`] });
      await bus.publish(`c${id}.a`, enc.encode('1'));
      await bus.publish(`c${id}.b`, enc.encode('2'));
      const got = inbox<number>();
      const sub = await bus.follow(`S${id}`, { fromSeq: 2 }, (m) => got.push(m.seq));
      await bus.publish(`c${id}.a`, enc.encode('3'));
      t.same([await got.next(), await got.next()], [2, 3]);
      await sub.stop();
    },
  );

  withBus(
    'request/reply answers, times out, reports no responders and carries remote errors',
    async ({ bus }, id, t) => {
      await t.rejects(bus.request(`r${id}.none`, enc.encode('?'), { timeoutMs: 1_000 }), NoRespondersError);
      const echo = bus.reply(`r${id}.echo`, async (m) => enc.encode(`echo:${text(m.data)}`));
      const slow = bus.reply(
        `r${id}.slow`,
        () => new Promise<Uint8Array>((resolve) => setTimeout(() => resolve(enc.encode('late')), 1_500)),
      );
      const broken = bus.reply(`r${id}.broken`, async () => {
        throw new Error('replier says no');
      });
      t.equal(
        text((await bus.request(`r${id}.echo`, enc.encode('hi'), { timeoutMs: 2_000 })).data),
        'echo:hi',
      );
      await t.rejects(bus.request(`r${id}.slow`, enc.encode('?'), { timeoutMs: 200 }), RequestTimeoutError);
      await t.rejects(bus.request(`r${id}.broken`, enc.encode('?'), { timeoutMs: 2_000 }), {
        name: 'RemoteError',
        message: /replier says no/,
      });
      t.ok(RemoteError);
      await echo.stop();
      await slow.stop();
      await broken.stop();
    },
  );

  withBus('each request reaches exactly one of several repliers', async ({ bus }, id, t) => {
    let calls = 0;
    const answer = async () => {
      calls += 1;
      return enc.encode('ok');
    };
    const one = bus.reply(`r${id}.q`, answer);
    const two = bus.reply(`r${id}.q`, answer);
    for (let i = 0; i < 6; i += 1) await bus.request(`r${id}.q`, enc.encode(String(i)), { timeoutMs: 2_000 });
    t.equal(calls, 6);
    await one.stop();
    await two.stop();
  });

  withBus(
    'a durable consumer acknowledges on return and redelivers what its handler threw',
    async ({ bus }, id, t) => {
      await bus.ensureStream({ name: `S${id}`, subjects: [`c${id}.>`] });
      await bus.publish(`c${id}.a`, enc.encode('1'));
      await bus.publish(`c${id}.a`, enc.encode('2'));
      const got = inbox<DeliveredMessage>();
      let failedOnce = false;
      const sub = await bus.consume(`S${id}`, { durable: `d${id}`, ackWaitMs: 300 }, async (m) => {
        got.push(m);
        if (m.seq === 1 && !failedOnce) {
          failedOnce = true;
          throw new Error('not yet');
        }
      });
      const seen: Array<[number, number]> = [];
      for (let i = 0; i < 3; i += 1) {
        const m = await got.next();
        seen.push([m.seq, m.deliveryCount]);
      }
      t.same(seen.sort(), [
        [1, 1],
        [1, 2],
        [2, 1],
      ]);
      await sub.stop();
    },
  );

  withBus(
    'RedeliverError asks for a delayed redelivery and TerminateError drops the message',
    async ({ bus }, id, t) => {
      await bus.ensureStream({ name: `S${id}`, subjects: [`c${id}.>`] });
      await bus.publish(`c${id}.a`, enc.encode('retry'));
      await bus.publish(`c${id}.a`, enc.encode('poison'));
      await bus.publish(`c${id}.a`, enc.encode('after'));
      const got = inbox<string>();
      let retried = false;
      const sub = await bus.consume(`S${id}`, { durable: `d${id}`, ackWaitMs: 5_000 }, async (m) => {
        const body = text(m.data);
        got.push(`${body}#${m.deliveryCount}`);
        if (body === 'retry' && !retried) {
          retried = true;
          throw new RedeliverError('later', 100);
        }
        if (body === 'poison') throw new TerminateError('cannot parse');
      });
      const seen = new Set<string>();
      while (seen.size < 4) seen.add(await got.next());
      t.same([...seen].sort(), ['after#1', 'poison#1', 'retry#1', 'retry#2']);
      await sub.stop();
    },
  );

  withBus('maxDeliver gives up on a message after that many deliveries', async ({ bus }, id, t) => {
    await bus.ensureStream({ name: `S${id}`, subjects: [`c${id}.>`] });
    await bus.publish(`c${id}.a`, enc.encode('bad'));
    await bus.publish(`c${id}.a`, enc.encode('good'));
    const got = inbox<string>();
    const sub = await bus.consume(
      `S${id}`,
      { durable: `d${id}`, ackWaitMs: 200, maxDeliver: 2 },
      async (m) => {
        got.push(`${text(m.data)}#${m.deliveryCount}`);
        if (text(m.data) === 'bad') throw new RedeliverError('again', 50);
      },
    );
    const seen = new Set<string>();
    while (!seen.has('good#1') || !seen.has('bad#2')) seen.add(await got.next());
    await t.rejects(got.next(600), /nothing arrived/, 'no third delivery');
    await sub.stop();
  });

  withBus(
    'a consumer filtered by subject sees only that subject; deliverPolicy new skips the backlog',
    async ({ bus }, id, t) => {
      await bus.ensureStream({ name: `S${id}`, subjects: [`c${id}.>`] });
      await bus.publish(`c${id}.keep`, enc.encode('old'));
      await bus.publish(`c${id}.skip`, enc.encode('x'));
      const filtered = inbox<string>();
      const a = await bus.consume(`S${id}`, { durable: `f${id}`, filterSubject: `c${id}.keep` }, async (m) =>
        filtered.push(text(m.data)),
      );
      const fresh = inbox<string>();
      const b = await bus.consume(`S${id}`, { durable: `n${id}`, deliverPolicy: 'new' }, async (m) =>
        fresh.push(text(m.data)),
      );
      await bus.publish(`c${id}.keep`, enc.encode('new'));
      t.same([await filtered.next(), await filtered.next()], ['old', 'new']);
      t.equal(await fresh.next(), 'new');
      await a.stop();
      await b.stop();
    },
  );

  withBus('a work-queue stream removes each message once it is acknowledged', async ({ bus }, id, t) => {
    await bus.ensureStream({ name: `Q${id}`, subjects: [`q${id}.*.inbox`], retention: 'workqueue' });
    await bus.publish(`q${id}.ada.inbox`, enc.encode('1'));
    await bus.publish(`q${id}.ada.inbox`, enc.encode('2'));
    const got = inbox<number>();
    const sub = await bus.consume(`Q${id}`, { durable: `w${id}` }, async (m) => got.push(m.seq));
    t.same([await got.next(), await got.next()], [1, 2]);
    t.ok(
      await eventually(async () => (await bus.streamInfo(`Q${id}`)).messages === 0, 5_000),
      'stream emptied',
    );
    await sub.stop();
  });

  withBus('maxMsgs keeps only the newest messages', async ({ bus }, id, t) => {
    await bus.ensureStream({ name: `S${id}`, subjects: [`c${id}.>`], maxMsgs: 3 });
    for (let i = 1; i <= 5; i += 1) await bus.publish(`c${id}.a`, enc.encode(String(i)));
    t.match(await bus.streamInfo(`S${id}`), { firstSeq: 3, lastSeq: 5, messages: 3 });
    t.same(
      (await collect(bus.replay(`S${id}`))).map((m) => text(m.data)),
      ['3', '4', '5'],
    );
  });

  withBus('maxAgeMs discards messages older than the limit', async ({ bus }, id, t) => {
    await bus.ensureStream({ name: `S${id}`, subjects: [`c${id}.>`], maxAgeMs: 1_000 });
    await bus.publish(`c${id}.a`, enc.encode('old'));
    t.ok(
      await eventually(async () => (await bus.streamInfo(`S${id}`)).messages === 0, 6_000),
      'old message aged out',
    );
    await bus.publish(`c${id}.a`, enc.encode('new'));
    t.same(
      (await collect(bus.replay(`S${id}`))).map((m) => text(m.data)),
      ['new'],
    );
  });

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
    'positions of durable consumers, sequences and kv revisions survive a reopen',
    async (fx, id, t) => {
      if (!fx.reopen) {
        t.pass(`${engine}: persistence is the server's; covered by its own restart test`);
        return;
      }
      let bus = fx.bus;
      await bus.ensureStream({ name: `S${id}`, subjects: [`c${id}.>`] });
      await bus.publish(`c${id}.a`, enc.encode('1'));
      await bus.publish(`c${id}.a`, enc.encode('2'));
      const kv = await bus.kv({ name: `kv${id}` });
      const rev = await kv.put('k', enc.encode('v'));
      const first = inbox<number>();
      const sub = await bus.consume(`S${id}`, { durable: `d${id}` }, async (m) => first.push(m.seq));
      t.equal(await first.next(), 1);
      t.equal(await first.next(), 2);
      await sub.stop();
      bus = await fx.reopen();
      t.equal((await bus.publish(`c${id}.a`, enc.encode('3'))).seq, 3, 'sequence continues');
      const again = inbox<number>();
      const sub2 = await bus.consume(`S${id}`, { durable: `d${id}` }, async (m) => again.push(m.seq));
      t.equal(await again.next(), 3, 'acknowledged messages are not redelivered');
      await sub2.stop();
      const kv2 = await bus.kv({ name: `kv${id}` });
      t.equal((await kv2.get('k'))?.revision, rev);
      t.ok((await kv2.put('k', enc.encode('w'))) > rev, 'revisions continue');
    },
  );

  withBus('a closed bus refuses further calls', async (fx, id, t) => {
    const bus = fx.bus;
    await bus.ensureStream({ name: `S${id}`, subjects: [`c${id}.>`] });
    await bus.close();
    await t.rejects(async () => bus.publish(`c${id}.a`, enc.encode('1')), BusClosedError);
  });
}
