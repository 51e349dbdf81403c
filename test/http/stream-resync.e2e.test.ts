/**
 * A client that stalls, then reads again (ops/events.md "Backpressure"): what its bounded queue dropped is
 * made good by a snapshot the node sends once the queue has drained, and every question it asked meanwhile
 * is answered, whole or by a coded error, over a real listener.
 */
import t from 'tap';
import { newEvent } from '../../bus/index.js';
import type { Question } from '../../http/index.js';
import type { PushMode } from '../../projections/index.js';
import { toRow } from '../../schema/index.js';
import { openWs } from '../../scripts/ws-client.js';
import { until } from '../harness/until.js';
import { startEventsNode, type Frame } from './fixtures/events-node.js';
import { call } from './fixtures/gateway-harness.js';

const page: Question = { guarded: false, answer: () => ({ rows: 'r'.repeat(20_000) }) };

t.test(
  'a client that stalls while 50,000 events are pushed, then reads, ends with the snapshot GET /stream/snapshot answers and every question answered',
  async (t) => {
    const { ws, h, events } = await startEventsNode(t, { questions: new Map([['page', page]]) });
    const hub = events.hub;
    // An `agents` section whose rows move while the client stalls: merge overlays, the frames a gap loses.
    const rows: Record<string, { handle: string; turns: number }> = {};
    let push: (data: unknown, mode: PushMode) => void = () => undefined;
    events.sections.register({
      name: 'agents',
      current: () => structuredClone(rows),
      subscribe: (p) => ((push = p), () => undefined),
    });
    const frames: Frame[] = [];
    const slow = await openWs(`${ws}/ws/stream`, (text) => frames.push(JSON.parse(text) as Frame));
    t.teardown(() => slow.socket.destroy());
    await until(
      async () => frames.length,
      (n) => n > 0,
    );
    slow.socket.pause();

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
    const asked: number[] = [];
    for (let sent = 0; sent < total; sent += 500) {
      for (let i = sent; i < sent + 500; i++) {
        hub.push('event', { ...row, id: `e-${i}` }, 'merge');
        if (i % 50 === 0) {
          const handle = `seat-${(i / 50) % 7}`;
          rows[handle] = { handle, turns: (rows[handle]?.turns ?? 0) + 1 };
          push({ [handle]: rows[handle] }, 'merge');
        }
      }
      if (sent % 1000 === 0) {
        asked.push(asked.length + 1);
        slow.send(JSON.stringify({ kind: 'query', id: asked.length, what: 'page' }));
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    const stalled = hub.clientStats()[0]!;
    t.ok(stalled.dropped > 0, `the stalled client dropped envelopes (${stalled.dropped})`);

    slow.socket.resume();
    const answersOf = () => frames.filter((f) => f.kind === 'result' || f.kind === 'error');
    const resyncs = () => frames.filter((f) => f.kind === 'snapshot' && (f as { dropped?: number }).dropped);
    await until(
      async () => [answersOf().length, resyncs().length],
      ([answered, resynced]) => answered === asked.length && resynced! > 0,
    );
    // Anything still on its way is ahead of the pong.
    slow.send(JSON.stringify({ kind: 'ping' }));
    await until(
      async () => frames.at(-1)?.kind,
      (k) => k === 'pong',
    );

    const answers = answersOf();
    t.same(
      answers.map((f) => f.data.id as number).sort((a: number, b: number) => a - b),
      asked,
      'every question was answered, once',
    );
    const shed = answers.filter((f) => f.kind === 'error');
    t.ok(
      shed.every((f) => f.data.code === 'answer_dropped' && f.data.error === 'query_failed'),
      'an answer not sent whole is its coded error',
    );
    t.ok(shed.length > 0, `answers were shed (${shed.length}) and still settled`);

    const last = frames.findLastIndex((f) => f.kind === 'snapshot');
    const resync = frames[last] as Frame & { dropped?: number };
    t.ok(
      last > 0 && resync.dropped! > 0,
      `the last snapshot is a resync carrying the count (${resync.dropped})`,
    );
    t.same(
      frames.slice(last + 1).filter((f) => !['result', 'error', 'pong'].includes(f.kind)),
      [],
      'nothing pushed follows it',
    );
    const snapshot = await call(`${h.base}/stream/snapshot`);
    t.same(resync.data, snapshot.json, 'the client holds what GET /stream/snapshot answers');
    t.same(resync.data.agents, rows, 'every seat row as it moved last');
    t.equal(resyncs().length, 1, 'one resync for the one gap');
    const after = hub.clientStats()[0]!;
    t.equal(after.queued, 0, 'the queue drained');
  },
);
