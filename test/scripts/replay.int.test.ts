import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import t from 'tap';
import { ensureCatalogue, Streams, Subjects, type Bus } from '../../bus/index.js';
import { openMemoryBus } from '../../bus/memory/index.js';
import { replayStream } from '../../scripts/replay.js';

const enc = new TextEncoder();

async function run(bus: Bus, request: Parameters<typeof replayStream>[1]) {
  const out = new PassThrough();
  let text = '';
  out.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const result = await replayStream(bus, request, out);
  return {
    result,
    lines: text
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

async function consumeAllBut(bus: Bus, stream: string, keep: number[], total: number): Promise<void> {
  let handled = 0;
  let done: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => (done = resolve));
  const sub = await bus.consume(stream, { durable: 'router', ackWaitMs: 60_000 }, async (m) => {
    handled += 1;
    if (handled === total) done();
    if (keep.includes(m.seq)) throw new Error('kept for later');
  });
  await finished;
  await sub.stop();
}

t.test('replay prints each message as a JSON line with seq, subject, time, headers and data', async (t) => {
  const bus = await openMemoryBus({});
  t.teardown(() => bus.close());
  await bus.ensureStream({ name: 'AUDIT', subjects: ['audit.>'] });
  await bus.publish('audit.a', enc.encode('{"x":1}'), { headers: { 'Svc-Trace': 't1' } });
  await bus.publish('audit.b', new Uint8Array([0xff, 0xfe]));
  await bus.publish('audit.c', enc.encode('plain text, é'));
  const { lines, result } = await run(bus, { stream: 'AUDIT' });
  t.match(lines[0], { seq: 1, subject: 'audit.a', headers: { 'Svc-Trace': 't1' }, data: '{"x":1}' });
  t.match(lines[0]?.['time'], /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  t.same(lines[1]?.['data'], { base64: '//4=' }, 'bytes that are not UTF-8 print as base64');
  t.equal(lines[2]?.['data'], 'plain text, é', 'UTF-8 text prints as a string');
  t.equal(lines.length, 3, 'no summary line without verify');
  t.match(result, { count: 3, first: 1, last: 3, gaps: [] });
});

t.test('replay starts at a sequence or an instant and filters by subject', async (t) => {
  const bus = await openMemoryBus({});
  t.teardown(() => bus.close());
  await bus.ensureStream({ name: 'AUDIT', subjects: ['audit.>'] });
  for (let i = 1; i <= 4; i += 1)
    await bus.publish(i % 2 ? 'audit.odd' : 'audit.even', enc.encode(String(i)));
  t.same(
    (await run(bus, { stream: 'AUDIT', fromSeq: 3 })).lines.map((l) => l['seq']),
    [3, 4],
  );
  t.same(
    (await run(bus, { stream: 'AUDIT', subject: 'audit.even' })).lines.map((l) => l['seq']),
    [2, 4],
  );
  t.same((await run(bus, { stream: 'AUDIT', since: new Date(Date.now() + 60_000) })).lines, []);
  const filtered = await run(bus, { stream: 'AUDIT', subject: 'audit.even', verify: true });
  t.match(
    filtered.lines.at(-1),
    { verify: 'ok', checked: 'increasing', count: 2 },
    'a filter skips on purpose',
  );
});

t.test('verify is ok on a gap-free stream and on one trimmed at its head by its limits', async (t) => {
  const bus = await openMemoryBus({});
  t.teardown(() => bus.close());
  await bus.ensureStream({ name: 'AUDIT', subjects: ['audit.>'], maxMsgs: 3 });
  for (let i = 1; i <= 2; i += 1) await bus.publish('audit.a', enc.encode(String(i)));
  const clean = await run(bus, { stream: 'AUDIT', verify: true });
  t.match(clean.lines.at(-1), { verify: 'ok', checked: 'contiguous', count: 2, first: 1, last: 2 });
  for (let i = 3; i <= 6; i += 1) await bus.publish('audit.a', enc.encode(String(i)));
  const trimmed = await run(bus, { stream: 'AUDIT', verify: true });
  t.match(trimmed.lines.at(-1), { verify: 'ok', count: 3, first: 4, last: 6, stream_first_seq: 4 });
});

t.test('verify accepts the holes work-queue acknowledgement leaves, checking only order', async (t) => {
  const bus = await openMemoryBus({});
  t.teardown(() => bus.close());
  await ensureCatalogue(bus);
  for (let i = 1; i <= 4; i += 1) await bus.publish(Subjects.agentInbox('ada'), enc.encode(String(i)));
  await consumeAllBut(bus, Streams.Inbox, [1, 3], 4);
  const { lines, result } = await run(bus, { stream: Streams.Inbox, verify: true });
  t.match(lines.at(-1), { verify: 'ok', retention: 'workqueue', checked: 'increasing', count: 2 });
  t.same(
    lines.slice(0, -1).map((l) => l['seq']),
    [1, 3],
    'only the unacknowledged messages remain',
  );
  t.same(result.gaps, []);
});

t.test('verify names a message missing from the middle of a limits stream', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-replay-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  let bus = await openMemoryBus({ storeDir: dir });
  await bus.ensureStream({ name: 'AUDIT', subjects: ['audit.>'] });
  for (let i = 1; i <= 5; i += 1) await bus.publish('audit.a', enc.encode(String(i)));
  await bus.close();
  // Lose message 3 behind the engine's back, as a damaged store would.
  const db = new Database(join(dir, 'bus.sqlite'));
  db.prepare("DELETE FROM messages WHERE stream = 'AUDIT' AND seq = 3").run();
  db.close();
  bus = await openMemoryBus({ storeDir: dir });
  t.teardown(() => bus.close());
  const { lines, result } = await run(bus, { stream: 'AUDIT', verify: true });
  t.match(lines.at(-1), { verify: 'gaps', count: 4, gaps: [{ after: 2, next: 4 }] });
  t.same(result.gaps, [{ after: 2, next: 4 }]);
});

t.test('replay waits for a slow sink instead of buffering the whole stream', async (t) => {
  const bus = await openMemoryBus({});
  t.teardown(() => bus.close());
  await bus.ensureStream({ name: 'BIG', subjects: ['big.>'] });
  await Promise.all(Array.from({ length: 5_000 }, (_, i) => bus.publish('big.x', enc.encode(String(i)))));
  let lines = 0;
  let maxBuffered = 0;
  const sink: Writable = new Writable({
    highWaterMark: 1024,
    write(chunk: Buffer, _encoding, callback) {
      lines += chunk.toString().split('\n').length - 1;
      maxBuffered = Math.max(maxBuffered, sink.writableLength);
      setImmediate(callback);
    },
  });
  const result = await replayStream(bus, { stream: 'BIG' }, sink);
  await new Promise<void>((resolve) => sink.end(resolve));
  t.equal(result.count, 5_000);
  t.equal(lines, 5_000);
  t.ok(maxBuffered < 4_096, `at most a few lines were buffered (${maxBuffered} bytes)`);
});
