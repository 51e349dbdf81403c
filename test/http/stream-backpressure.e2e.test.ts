import { newEvent } from '../../bus/index.js';
import t from 'tap';
import { toRow } from '../../schema/index.js';
import { openWs } from '../../scripts/ws-client.js';
import { dashboard, startEventsNode } from './fixtures/events-node.js';
import { until } from '../harness/until.js';

t.test(
  'a client that never reads keeps a bounded queue while 50,000 events are pushed; others receive every one',
  async (t) => {
    const { ws, events } = await startEventsNode(t);
    const hub = events.hub;
    // The slow client completes the handshake, then stops reading: the kernel buffers fill, then ours.
    const slow = await openWs(`${ws}/ws/stream`, () => undefined);
    slow.socket.pause();
    t.teardown(() => slow.socket.destroy());
    const fast = await dashboard(`${ws}/ws/stream`);
    t.teardown(() => fast.client.close());
    await fast.next((f) => f.kind === 'snapshot');
    const counter = await dashboard(`${ws}/ws/stream`);
    t.teardown(() => counter.client.close());
    await counter.next((f) => f.kind === 'snapshot');

    const row = toRow(
      newEvent({
        type: 'agent_phase_completed',
        category: 'lifecycle',
        source: 'seat/ada',
        summary: 'ada finished the execute phase of turn 42 with 3 tool calls and a long summary line',
        actor: 'ada',
        agent_id: 'ada',
      }),
    );
    const total = 50_000;
    const batch = 1000;
    let maxQueued = 0;
    let maxBytes = 0;
    const fastCount = () => fast.frames.filter((f) => f.kind === 'event').length;
    for (let sent = 0; sent < total; sent += batch) {
      for (let i = sent; i < sent + batch; i++) hub.push('event', { ...row, id: `e-${i}` }, 'merge');
      for (const s of hub.clientStats()) {
        maxQueued = Math.max(maxQueued, s.queued);
        maxBytes = Math.max(maxBytes, s.queuedBytes);
      }
      // The reading clients keep up: wait for this batch to arrive before pushing the next.
      await fast.next((f) => f.kind === 'event' && f.data.id === `e-${sent + batch - 1}`);
      await counter.next((f) => f.kind === 'event' && f.data.id === `e-${sent + batch - 1}`);
    }
    t.equal(fastCount(), total, 'the reading client received every event');
    t.equal(counter.frames.filter((f) => f.kind === 'event').length, total, 'so did the other one');
    const stats = hub.clientStats();
    const slowStats = stats.find((s) => s.dropped > 0);
    t.ok(slowStats, 'the stalled client dropped envelopes');
    t.ok(maxQueued <= 512, `no queue ever held more than 512 envelopes (max ${maxQueued})`);
    t.ok(maxBytes <= 8 * 1024 * 1024, `no queue ever held more than 8 MiB (max ${maxBytes})`);
    t.equal(stats.filter((s) => s.dropped > 0).length, 1, 'only the stalled client dropped anything');
    t.ok(
      slowStats!.sent + slowStats!.queued + slowStats!.dropped >= total,
      'every envelope was sent, queued or dropped',
    );
  },
);

/** A socket whose send buffer stays full until `drain()`; what it was sent lands in `written`. */
function stalledSink() {
  let buffered = 1_000_000;
  const written: string[] = [];
  const sink = {
    send: (s: string) => (written.push(s), 1),
    bufferedAmount: () => buffered,
    end: () => undefined,
  };
  return { sink, written, drain: () => void (buffered = 0) };
}

t.test(
  'a stalled client sees only the newest replace-style frame of a kind and keeps its merges in order',
  async (t) => {
    const { StreamClient } = await import('../../http/index.js');
    const { sink, written, drain } = stalledSink();
    const c = new StreamClient(1, sink, null, null, {
      maxQueue: 4,
      maxQueueBytes: 1 << 20,
      highWater: 1000,
      maxAnswers: 128,
    });
    c.deliver('seats-1', 'seats', true);
    c.deliver('agents-1', 'agents', false);
    c.deliver('seats-2', 'seats', true);
    c.deliver('agents-2', 'agents', false);
    t.equal(c.queued, 3, 'the first seats frame was superseded');
    c.deliver('e1', 'event', false);
    c.deliver('e2', 'event', false);
    t.equal(c.queued, 4);
    t.equal(c.dropped, 1, 'past 4 the oldest is dropped');
    drain();
    c.flush();
    t.same(written, ['seats-2', 'agents-2', 'e1', 'e2']);
    t.equal(c.queued, 0);
  },
);

t.test(
  'the queue bound counts UTF-8 bytes, not UTF-16 units, when it drops, supersedes and sends',
  async (t) => {
    const { StreamClient } = await import('../../http/index.js');
    const { sink, written, drain } = stalledSink();
    const c = new StreamClient(1, sink, null, null, {
      maxQueue: 512,
      maxQueueBytes: 1000,
      highWater: 1000,
      maxAnswers: 128,
    });
    const euros = (n: number): string => '€'.repeat(n); // 3 bytes each on the wire, 1 UTF-16 unit
    for (let i = 0; i < 10; i++) c.deliver(euros(100), 'event', false);
    t.equal(c.queued, 3, 'three 300-byte frames fit in 1000 bytes; the oldest others were dropped');
    t.equal(c.queuedBytes, 900);
    t.equal(c.dropped, 7);
    c.deliver(euros(50), 'seats', true);
    t.equal(c.queuedBytes, 750, 'past the bound the oldest goes: 2 × 300 + 150');
    c.deliver(euros(60), 'seats', true);
    t.equal(c.queuedBytes, 780, 'a superseded frame gives back its bytes');
    drain();
    c.flush();
    t.equal(c.queuedBytes, 0);
    t.same(
      written.map((w) => Buffer.byteLength(w)),
      [300, 300, 180],
    );
  },
);

t.test(
  'a stalled client loses its oldest queued events, never the newest nor the socket, and reads on in order',
  async (t) => {
    const { ws, events } = await startEventsNode(t);
    const hub = events.hub;
    const ids: number[] = [];
    const kinds: string[] = [];
    const total = 20_000;
    const slow = await openWs(`${ws}/ws/stream`, (text) => {
      const f = JSON.parse(text) as { kind: string; data: { id?: string } | null };
      kinds.push(f.kind);
      if (f.kind !== 'event') return;
      ids.push(Number(f.data?.id?.slice(2)));
    });
    t.teardown(() => slow.socket.destroy());
    // Read the snapshot, then stop reading: the kernel buffers fill, then the hub's queue.
    await until(
      async () => kinds.length,
      (n) => n > 0,
    );
    slow.socket.pause();
    const row = toRow(
      newEvent({
        type: 'agent_phase_completed',
        category: 'lifecycle',
        source: 'seat/ada',
        summary: `ada finished a phase ${'with a long summary line '.repeat(60)}`,
        actor: 'ada',
        agent_id: 'ada',
      }),
    );
    const stats = () => hub.clientStats()[0]!;
    for (let sent = 0; sent < total; sent += 500) {
      for (let i = sent; i < sent + 500; i++) hub.push('event', { ...row, id: `e-${i}` }, 'merge');
      await new Promise((resolve) => setImmediate(resolve));
    }
    const { dropped, queued } = stats();
    t.ok(dropped > 0 && queued > 0, `the stalled client queued (${queued}) and dropped (${dropped})`);

    // The pong is queued behind what waits (taking the oldest one's place): once it arrives, all kept has.
    slow.socket.resume();
    slow.send(JSON.stringify({ kind: 'ping' }));
    await until(async () => kinds.includes('pong'), Boolean);
    const lost = stats().dropped;
    t.equal(ids.at(-1), total - 1, 'the newest event was kept and arrives once the client reads again');
    t.ok(
      ids.every((n, i) => i === 0 || n > ids[i - 1]!),
      'what arrives is in push order, none twice',
    );
    t.equal(ids.length + lost, total, 'every event arrived or was counted dropped');
    t.equal(ids[0], 0, 'what the socket took before it stalled was not taken back');
    const gapAt = ids.findLastIndex((n, i) => i > 0 && n !== ids[i - 1]! + 1);
    t.ok(gapAt > 0, 'a run was lost between what the socket took and what waited');
    t.ok(ids.length - gapAt >= queued - 1, 'what waited in the queue arrived whole, up to the newest');
    slow.send(JSON.stringify({ kind: 'ping' }));
    await until(
      async () => kinds.filter((k) => k === 'pong').length,
      (n) => n === 2,
    );
    t.equal(stats().dropped, lost, 'the socket stayed open and drops nothing once the client reads');
  },
);
