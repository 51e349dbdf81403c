/** Bus contract, part: consumers. Registered by busContract (contract.ts). */
import { RedeliverError, TerminateError, type DeliveredMessage } from '../../bus/index.js';
import { enc, text, eventually, collect, inbox, type WithBus } from './contract-helpers.js';
export function registerConsumers(withBus: WithBus): void {
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

  withBus(
    'a consumer with concurrency runs that many handlers at once, starts them in order and acknowledges each',
    async ({ bus }, id, t) => {
      await bus.ensureStream({ name: `S${id}`, subjects: [`c${id}.>`] });
      for (let i = 1; i <= 6; i += 1) await bus.publish(`c${id}.a`, enc.encode(String(i)));
      const started: number[] = [];
      const gate = inbox<true>();
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let failedOnce = false;
      const spec = { durable: `d${id}`, ackWaitMs: 300, concurrency: 3 };
      const sub = await bus.consume(`S${id}`, spec, async (m) => {
        started.push(m.seq);
        if (started.length === 3) gate.push(true);
        await released;
        if (m.seq === 2 && !failedOnce) {
          failedOnce = true;
          throw new Error('not yet');
        }
      });
      await gate.next();
      t.same(started, [1, 2, 3], 'three calls in flight, started in stream order, none beyond the limit');
      release();
      t.ok(
        await eventually(
          async () => started.filter((s) => s === 2).length === 2 && started.length === 7,
          10_000,
        ),
        'the rest handled, the failed one redelivered',
      );
      await sub.stop();
      const again: number[] = [];
      const resumed = await bus.consume(`S${id}`, spec, async (m) => void again.push(m.seq));
      await bus.publish(`c${id}.a`, enc.encode('7'));
      t.ok(await eventually(async () => again.length > 0, 10_000));
      t.same(again, [7], 'every message was acknowledged once handled; only the new one comes');
      await resumed.stop();
    },
  );

  withBus('consumerPending counts what a durable has not acknowledged yet', async ({ bus }, id, t) => {
    await bus.ensureStream({ name: `S${id}`, subjects: [`c${id}.>`] });
    t.equal(await bus.consumerPending(`S${id}`, `d${id}`), null, 'no such consumer');
    for (let i = 1; i <= 3; i += 1) await bus.publish(`c${id}.a`, enc.encode(String(i)));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const handled: number[] = [];
    const sub = await bus.consume(`S${id}`, { durable: `d${id}` }, async (m) => {
      await released;
      handled.push(m.seq);
    });
    t.equal(await bus.consumerPending(`S${id}`, `d${id}`), 3, 'one in its handler, two waiting');
    release();
    t.ok(
      await eventually(async () => (await bus.consumerPending(`S${id}`, `d${id}`)) === 0, 10_000),
      'none once all are handled',
    );
    t.same(handled, [1, 2, 3]);
    await sub.stop();
    await bus.publish(`c${id}.a`, enc.encode('4'));
    t.ok(
      await eventually(async () => (await bus.consumerPending(`S${id}`, `d${id}`)) === 1, 10_000),
      'a stopped consumer still counts what arrived since',
    );
  });

  withBus(
    'consumerAckFloor stays below the first message a durable has not acknowledged',
    async ({ bus }, id, t) => {
      const [stream, durable] = [`S${id}`, `d${id}`];
      await bus.ensureStream({ name: stream, subjects: [`c${id}.>`] });
      t.equal(await bus.consumerAckFloor(stream, durable), null, 'no such consumer');
      await bus.publish(`c${id}.a`, enc.encode('history'));
      await bus.publish(`c${id}.a`, enc.encode('history'));
      let stuck = true;
      const handled = new Set<number>();
      const sub = await bus.consume(
        stream,
        { durable, filterSubject: `c${id}.a`, deliverPolicy: 'new' },
        async (m) => {
          if (text(m.data) === 'stuck' && stuck) throw new RedeliverError('not yet', 50);
          handled.add(m.seq);
        },
      );
      const floor = () => bus.consumerAckFloor(stream, durable);
      t.equal(await floor(), 2, 'a durable made with deliverPolicy new starts at the last sequence');
      for (const body of ['ok', 'stuck', 'ok']) await bus.publish(`c${id}.a`, enc.encode(body)); // 3, 4, 5
      t.ok(await eventually(async () => handled.has(3) && handled.has(5), 10_000), 'the others are handled');
      t.ok(
        await eventually(async () => (await floor()) === 3, 10_000),
        'the floor waits below the stuck one',
      );
      t.equal(await floor(), 3, 'it stays there while the message keeps failing');
      stuck = false;
      t.ok(await eventually(async () => (await floor()) === 5, 10_000), 'past it once it is acknowledged');
      await bus.publish(`c${id}.b`, enc.encode('filtered out')); // 6
      await bus.publish(`c${id}.a`, enc.encode('ok')); // 7
      t.ok(await eventually(async () => (await floor()) === 7, 10_000), 'past what the filter skips');
      await sub.stop();
      t.equal(await floor(), 7, 'a stopped durable keeps its floor');
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

  withBus(
    'nextMessage reads the oldest waiting message of a subject on a work-queue stream, acknowledged ones gone',
    async ({ bus }, id, t) => {
      const stream = `Q${id}`;
      const [ada, bob] = [`q${id}.ada.inbox`, `q${id}.bob.inbox`];
      await bus.ensureStream({ name: stream, subjects: [`q${id}.*.inbox`], retention: 'workqueue' });
      for (const [subject, body] of [
        [ada, 'a1'],
        [bob, 'b2'],
        [ada, 'a3'],
        [bob, 'b4'],
      ] as const)
        await bus.publish(subject, enc.encode(body));
      // Bob's inbox has its consumer, as a seat's has: Ada's messages are read beside it.
      const sub = await bus.consume(stream, { durable: `w${id}`, filterSubject: bob }, async () => undefined);
      t.ok(
        await eventually(async () => (await bus.streamInfo(stream)).messages === 2, 5_000),
        "bob's messages acknowledged and removed",
      );
      const read = async (subject: string, from: number) => {
        const msg = await bus.nextMessage(stream, subject, from);
        return msg && [msg.seq, text(msg.data)];
      };
      t.same(await read(ada, 1), [1, 'a1'], 'the first at or after the sequence');
      t.same(await read(ada, 2), [3, 'a3'], 'other subjects skipped');
      t.equal(await read(ada, 4), null, 'none after the last');
      t.equal(await read(bob, 1), null, 'acknowledged messages are gone');
      await sub.stop();
    },
  );

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
}
