/** Bus contract, part: streams. Registered by busContract (contract.ts). */
import {
  InvalidNameError,
  NoRespondersError,
  NoStreamForSubjectError,
  RemoteError,
  RequestTimeoutError,
  StreamNotFoundError,
  WrongLastSequenceError,
  type StoredMessage,
} from '../../bus/index.js';
import { enc, text, collect, eventually, inbox, type WithBus } from './contract-helpers.js';

export function registerStreams(withBus: WithBus, engine: string): void {
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
    'purgeBelow removes every message below a sequence and keeps the rest, readable and followed',
    async (fixture, id, t) => {
      const { bus } = fixture;
      const stream = `S${id}`;
      await bus.ensureStream({ name: stream, subjects: [`c${id}.>`] });
      for (let i = 1; i <= 6; i += 1)
        await bus.publish(`c${id}.${i <= 2 ? 'gone' : 'kept'}`, enc.encode(`${i}`));
      t.equal(await bus.purgeBelow(stream, 4), 3, 'three messages below 4');
      t.match(await bus.streamInfo(stream), { firstSeq: 4, lastSeq: 6, messages: 3 });
      t.equal(await bus.getMessage(stream, 3), null);
      t.equal(await bus.lastMessage(stream, `c${id}.gone`), null, 'a subject with nothing left has no last');
      t.same(
        (await collect(bus.replay(stream, { fromSeq: 1 }))).map((m) => text(m.data)),
        ['4', '5', '6'],
      );
      t.equal(await bus.purgeBelow(stream, 2), 0, 'below what is gone: nothing more');
      // Sequences are never reused, and the subject of purged messages takes new ones.
      const next = await bus.publish(`c${id}.gone`, enc.encode('7'), { expectedLastSubjectSeq: 0 });
      t.equal(next.seq, 7);
      const seen = inbox<string>();
      const follow = await bus.follow(stream, { fromSeq: 1 }, (m) => seen.push(text(m.data)));
      t.same(
        [await seen.next(), await seen.next(), await seen.next(), await seen.next()],
        ['4', '5', '6', '7'],
      );
      await follow.stop();
      const reopened = fixture.reopen ? await fixture.reopen() : bus;
      t.match(await reopened.streamInfo(stream), { firstSeq: 4, lastSeq: 7, messages: 4 });
      t.equal(await reopened.purgeBelow(stream, 8), 4, 'everything below 8');
      t.match(await reopened.streamInfo(stream), { firstSeq: 8, lastSeq: 7, messages: 0 });
    },
  );

  withBus(
    'purgeBelow with a subject filter removes only the matching messages below the sequence',
    async (fixture, id, t) => {
      const { bus } = fixture;
      const stream = `S${id}`;
      await bus.ensureStream({ name: stream, subjects: [`c${id}.>`] });
      for (const [i, subject] of ['a.count', 'pass', 'b.count', 'a.count', 'pass', 'a.count'].entries())
        await bus.publish(`c${id}.${subject}`, enc.encode(`${i + 1}`));
      t.equal(await bus.purgeBelow(stream, 5, `c${id}.*.count`), 3, 'the three counts below 5');
      t.same(
        (await collect(bus.replay(stream, { fromSeq: 1 }))).map((m) => text(m.data)),
        ['2', '5', '6'],
        'the other subject and what is at or above 5 are kept',
      );
      t.match(await bus.streamInfo(stream), { firstSeq: 2, lastSeq: 6, messages: 3 });
      t.equal(
        await bus.lastMessage(stream, `c${id}.b.count`),
        null,
        'a subject with nothing left has no last',
      );
      t.equal((await bus.lastMessage(stream, `c${id}.a.count`))?.seq, 6);
      const reopened = fixture.reopen ? await fixture.reopen() : bus;
      t.equal(await reopened.purgeBelow(stream, 7, `c${id}.*.count`), 1);
      t.match(await reopened.streamInfo(stream), { firstSeq: 2, lastSeq: 6, messages: 2 });
    },
  );

  withBus(
    'deleteStream removes a stream with its messages and consumer positions; a new one starts empty',
    async (fixture, id, t) => {
      const { bus } = fixture;
      const stream = `S${id}`;
      await bus.ensureStream({ name: stream, subjects: [`c${id}.>`] });
      for (let i = 1; i <= 3; i += 1) await bus.publish(`c${id}.x`, enc.encode(`${i}`), { msgId: `m-${i}` });
      const seen = inbox<string>();
      const sub = await bus.consume(stream, { durable: 'd' }, async (m) => seen.push(text(m.data)));
      t.same([await seen.next(), await seen.next(), await seen.next()], ['1', '2', '3']);
      await sub.stop();
      t.equal(await bus.deleteStream(stream), true, 'it existed');
      await t.rejects(bus.streamInfo(stream), StreamNotFoundError);
      await t.rejects(bus.publish(`c${id}.x`, enc.encode('4')), NoStreamForSubjectError);
      t.equal(await bus.deleteStream(stream), false, 'deleting again: there is none');
      const reopened = fixture.reopen ? await fixture.reopen() : bus;
      await t.rejects(reopened.streamInfo(stream), StreamNotFoundError, 'gone after a restart too');
      await reopened.ensureStream({ name: stream, subjects: [`c${id}.>`] });
      t.match(await reopened.streamInfo(stream), { messages: 0 });
      const again = await reopened.publish(`c${id}.x`, enc.encode('5'), { msgId: 'm-1' });
      t.equal(again.duplicate, false, 'the old message ids are forgotten');
      t.equal(await reopened.consumerPending(stream, 'd'), null, 'the old consumer is gone');
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
    'distinct message ids are stored apart, and an id is accepted again once its window has passed',
    async ({ bus }, id, t) => {
      await bus.ensureStream({ name: `S${id}`, subjects: [`c${id}.>`], duplicateWindowMs: 500 });
      const a = await bus.publish(`c${id}.x`, enc.encode('a'), { msgId: 'm-1' });
      const b = await bus.publish(`c${id}.x`, enc.encode('b'), { msgId: 'm-2' });
      t.same([a.duplicate, b.duplicate, b.seq], [false, false, a.seq + 1]);
      t.ok(
        await eventually(
          async () => !(await bus.publish(`c${id}.x`, enc.encode('c'), { msgId: 'm-1' })).duplicate,
          5_000,
        ),
        'm-1 is stored again after the window',
      );
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
    'follow from an instant with a subject filter delivers only matching messages, old then new',
    async ({ bus }, id, t) => {
      await bus.ensureStream({ name: `S${id}`, subjects: [`c${id}.>`] });
      await bus.publish(`c${id}.keep`, enc.encode('1'));
      await bus.publish(`c${id}.skip`, enc.encode('2'));
      const got = inbox<string>();
      const sub = await bus.follow(`S${id}`, { since: new Date(0), subject: `c${id}.keep` }, (m) =>
        got.push(text(m.data)),
      );
      await bus.publish(`c${id}.skip`, enc.encode('3'));
      await bus.publish(`c${id}.keep`, enc.encode('4'));
      t.same([await got.next(), await got.next()], ['1', '4']);
      await sub.stop();
      await bus.publish(`c${id}.keep`, enc.encode('5'));
      await t.rejects(got.next(300), /nothing arrived/, 'a stopped follower receives nothing more');
    },
  );

  withBus(
    'emit reaches live subscribers by wildcard, and subscribers also see stream publishes',
    async ({ bus }, id, t) => {
      await bus.ensureStream({ name: `S${id}`, subjects: [`c${id}.>`] });
      const all = inbox<string>();
      const one = inbox<string>();
      const a = bus.subscribe(`x${id}.>`, (m) => all.push(`${m.subject}=${text(m.data)}`));
      const b = bus.subscribe(`x${id}.*`, (m) => one.push(`${m.subject}=${m.headers['Svc-Trace'] ?? ''}`));
      const stored = bus.subscribe(`c${id}.*`, (m) => one.push(`${m.subject}=${text(m.data)}`));
      bus.emit(`x${id}.ping`, enc.encode('1'), { 'Svc-Trace': 't1' });
      bus.emit(`x${id}.deep.ping`, enc.encode('2'));
      t.same([await all.next(), await all.next()], [`x${id}.ping=1`, `x${id}.deep.ping=2`]);
      t.equal(await one.next(), `x${id}.ping=t1`, '* matches one token only, headers travel');
      await bus.publish(`c${id}.a`, enc.encode('s'));
      t.equal(await one.next(), `c${id}.a=s`);
      await a.stop();
      await b.stop();
      await stored.stop();
      t.throws(() => bus.emit(`x${id}.*`, enc.encode('1')), InvalidNameError);
    },
  );

  withBus(
    'listened: a subject a live subscription matches may be heard; the memory engine knows one nobody hears',
    async ({ bus }, id, t) => {
      const heard = inbox<string>();
      const sub = bus.subscribe(`l${id}.*`, (m) => heard.push(text(m.data)));
      t.ok(bus.listened(`l${id}.x`), 'a matching subscription is listening');
      bus.emit(`l${id}.x`, enc.encode('1'));
      t.equal(await heard.next(), '1');
      await sub.stop();
      const deeper = bus.subscribe(`l${id}.x.>`, () => undefined);
      // One process holds every subscriber of the memory engine; on JetStream others may listen anywhere.
      const alone = engine.startsWith('memory');
      t.equal(bus.listened(`l${id}.x`), !alone, `${engine}: a subject no subscription matches`);
      t.ok(bus.listened(`l${id}.x.y`), 'a wildcard subscription matching it is listening');
      await deeper.stop();
      t.equal(bus.listened(`l${id}.x.y`), !alone, `${engine}: once it stopped`);
      t.throws(() => bus.listened(`l${id}.*`), InvalidNameError, 'a wildcard is no subject to emit on');
    },
  );

  withBus(
    'a subscriber that joins after a subject was delivered gets its next messages; one that left gets none',
    async ({ bus }, id, t) => {
      const first = inbox<string>();
      const later = inbox<string>();
      const a = bus.subscribe(`j${id}.>`, (m) => first.push(text(m.data)));
      bus.emit(`j${id}.x`, enc.encode('1'));
      t.equal(await first.next(), '1');
      const b = bus.subscribe(`j${id}.*`, (m) => later.push(text(m.data)));
      bus.emit(`j${id}.x`, enc.encode('2'));
      t.equal(await later.next(), '2', 'the new subscriber is reached on a subject delivered before');
      t.equal(await first.next(), '2');
      await a.stop();
      bus.emit(`j${id}.x`, enc.encode('3'));
      t.equal(await later.next(), '3');
      await t.rejects(first.next(300), /nothing arrived/, 'the stopped subscriber receives nothing more');
      await b.stop();
    },
  );

  withBus(
    'streamInfo of an unknown stream is refused, and ensureStream again keeps messages and applies new limits',
    async ({ bus }, id, t) => {
      await t.rejects(bus.streamInfo(`Nope${id}`), StreamNotFoundError);
      await bus.ensureStream({ name: `S${id}`, subjects: [`c${id}.>`] });
      for (let i = 1; i <= 4; i += 1) await bus.publish(`c${id}.a`, enc.encode(String(i)));
      t.match(await bus.ensureStream({ name: `S${id}`, subjects: [`c${id}.>`] }), {
        lastSeq: 4,
        messages: 4,
      });
      const trimmed = await bus.ensureStream({ name: `S${id}`, subjects: [`c${id}.>`], maxMsgs: 2 });
      t.match(trimmed, { firstSeq: 3, lastSeq: 4, messages: 2 });
      t.same(await collect(bus.replay(`S${id}`, { fromSeq: 1, toSeq: 2 })), [], 'trimmed messages are gone');
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
        text((await bus.request(`r${id}.echo`, enc.encode('hi'), { timeoutMs: 10_000 })).data),
        'echo:hi',
      );
      await t.rejects(bus.request(`r${id}.slow`, enc.encode('?'), { timeoutMs: 200 }), RequestTimeoutError);
      await t.rejects(bus.request(`r${id}.broken`, enc.encode('?'), { timeoutMs: 10_000 }), {
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
    for (let i = 0; i < 6; i += 1)
      await bus.request(`r${id}.q`, enc.encode(String(i)), { timeoutMs: 10_000 });
    t.equal(calls, 6);
    await one.stop();
    await two.stop();
  });
}
