/**
 * A read behind a subject-filtered purge still gets every message that purge kept: nats-server 2.9 moves a
 * consumer behind such a purge to the first message left on the purged subject, past messages on other
 * subjects it never removed (another node's compaction while this one lags). The reader finds the gap,
 * sees that a message in it is still stored, and goes on from there (bus/jetstream/reader.ts). The pull
 * gate lets the server deliver the first batch and no more, so the consumer is behind at a known place.
 */
import t, { type Test } from 'tap';
import { openBus, type Bus } from '../../bus/index.js';
import { startNatsServer } from '../harness/nats-server.js';
import { startPullGate, type PullGate } from '../harness/pull-gate.js';

const enc = new TextEncoder();

/** A stream of `before` counts, one sum, then `after` counts: the sum is what the purge must leave read. */
async function countsAroundASum(writer: Bus, before: number, after: number): Promise<number> {
  await writer.ensureStream({ name: 'S', subjects: ['count.>', 'sum.>'] });
  for (let i = 0; i < before; i++) await writer.publish('count.a', enc.encode(`${i}`));
  const { seq } = await writer.publish('sum.a', enc.encode('sum'));
  for (let i = 0; i < after; i++) await writer.publish('count.a', enc.encode(`${i}`));
  return seq;
}

async function setUp(t: Test) {
  const server = await startNatsServer({ t });
  const writer = await openBus({ type: 'jetstream', url: server.url });
  t.teardown(() => writer.close());
  const gate = await startPullGate({ host: '127.0.0.1', port: server.port }, { t });
  const reader = await openBus({ type: 'jetstream', url: gate.url });
  t.teardown(() => reader.close());
  return { writer, gate, reader };
}

const inOrder = (seqs: number[]): boolean => seqs.every((s, i) => i === 0 || s > seqs[i - 1]!);

/** A follow of S from its start: the sequences it delivered, and when its first batch and `lastSeq` are in. */
async function following(t: Test, reader: Bus, lastSeq: number) {
  const seen: number[] = [];
  let firstBatch!: () => void;
  const firstBatchIn = new Promise<void>((resolve) => (firstBatch = resolve));
  let last!: () => void;
  const lastIn = new Promise<void>((resolve) => (last = resolve));
  const sub = await reader.follow('S', { fromSeq: 1 }, (m) => {
    seen.push(m.seq);
    if (seen.length === 512) firstBatch();
    if (m.seq === lastSeq) last();
  });
  t.teardown(() => sub.stop());
  return { seen, firstBatchIn, lastIn };
}

/**
 * A replay of S that, once its first batch is in (the server holding the consumer at the next message),
 * runs `before`, purges the counts below `sumSeq` and lets the consumer go on: the sequences it yielded.
 */
async function replayPurgingAfterFirstBatch(
  t: Test,
  writer: Bus,
  gate: PullGate,
  reader: Bus,
  sumSeq: number,
  before: () => Promise<unknown> = () => Promise.resolve(),
): Promise<number[]> {
  const seqs: number[] = [];
  for await (const m of reader.replay('S')) {
    seqs.push(m.seq);
    if (seqs.length !== 1_024) continue;
    await before();
    t.equal(
      await writer.purgeBelow('S', sumSeq, 'count.>'),
      sumSeq - 1,
      'the counts below the sum are purged',
    );
    gate.release();
  }
  return seqs;
}

t.test('a follow behind a purge of another subject still delivers the kept message', async (t) => {
  const { writer, gate, reader } = await setUp(t);
  const sumSeq = await countsAroundASum(writer, 1_000, 100);
  const { seen: seqs, firstBatchIn, lastIn } = await following(t, reader, sumSeq + 100);
  await firstBatchIn;
  t.equal(seqs.length, 512, 'the server delivered the first batch and no more');
  t.equal(await writer.purgeBelow('S', sumSeq, 'count.>'), sumSeq - 1, 'the counts below the sum are purged');
  gate.release();
  await lastIn;
  t.ok(inOrder(seqs), 'in stream order, each once');
  t.ok(seqs.includes(sumSeq), 'the sum the purge kept is delivered');
  t.same(
    seqs.slice(seqs.indexOf(sumSeq)),
    Array.from({ length: 101 }, (_, i) => sumSeq + i),
    'then every message after it',
  );
});

t.test(
  'a follow behind a purge that left nothing on its subject still delivers the kept message',
  async (t) => {
    const { writer, gate, reader } = await setUp(t);
    // Nothing is left on the purged subject, so the server moves the consumer to the end of the stream, and no
    // later message shows the gap: the follow learns where the consumer stands from its idle heartbeat.
    const sumSeq = await countsAroundASum(writer, 1_000, 0);
    const { seen, firstBatchIn, lastIn } = await following(t, reader, sumSeq);
    await firstBatchIn;
    t.equal(await writer.purgeBelow('S', sumSeq, 'count.>'), sumSeq - 1, 'every count is purged');
    gate.release();
    await lastIn;
    t.ok(inOrder(seen), 'in stream order, each once');
    t.equal(seen[seen.length - 1], sumSeq, 'the sum the purge kept is delivered, with nothing after it');
  },
);

t.test('a replay behind a purge of another subject still yields the kept message', async (t) => {
  const { writer, gate, reader } = await setUp(t);
  const sumSeq = await countsAroundASum(writer, 2_000, 100);
  const seqs = await replayPurgingAfterFirstBatch(t, writer, gate, reader, sumSeq);
  t.ok(inOrder(seqs), 'in stream order, each once');
  t.ok(seqs.includes(sumSeq), 'the sum the purge kept is yielded');
  t.equal(seqs[seqs.length - 1], sumSeq + 100, 'through the end of the stream as it began');
});

t.test('a replay moved past its end by a purge still yields the kept message before that end', async (t) => {
  const { writer, gate, reader } = await setUp(t);
  const sumSeq = await countsAroundASum(writer, 2_000, 0);
  // A count appended after the replay began is the first one the purge leaves: past the replay's end.
  const later = () => writer.publish('count.a', enc.encode('later'));
  const seqs = await replayPurgingAfterFirstBatch(t, writer, gate, reader, sumSeq, later);
  t.ok(inOrder(seqs), 'in stream order, each once');
  t.equal(seqs[seqs.length - 1], sumSeq, 'the sum the purge kept is yielded, and nothing past the end');
});
