import { PassThrough } from 'node:stream';
import t from 'tap';
import type { Bus } from '../../bus/index.js';
import { openJetStreamBus } from '../../bus/jetstream/index.js';
import { openMemoryBus } from '../../bus/memory/index.js';
import { replayStream } from '../../scripts/replay.js';
import { startNatsServer } from '../harness/nats-server.js';

const enc = new TextEncoder();

async function run(
  bus: Bus,
  request: Parameters<typeof replayStream>[1],
) {
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

t.test('replay prints each message as a JSON line with seq, subject, time, headers and data', async (t) => {
  const bus = await openMemoryBus({});
  t.teardown(() => bus.close());
  await bus.ensureStream({ name: 'AUDIT', subjects: ['audit.>'] });
  await bus.publish('audit.a', enc.encode('{"x":1}'), { headers: { 'Svc-Trace': 't1' } });
  await bus.publish('audit.b', new Uint8Array([0xff, 0xfe]));
  const { lines } = await run(bus, { stream: 'AUDIT', verify: false });
  t.match(lines[0], { seq: 1, subject: 'audit.a', headers: { 'Svc-Trace': 't1' }, data: '{"x":1}' });
  t.match(lines[0]?.['time'], /^\d{4}-\d{2}-\d{2}T/);
  t.same(lines[1]?.['data'], { base64: '//4=' }, 'bytes that are not UTF-8 print as base64');
});

t.test('replay starts at a sequence or an instant and filters by subject', async (t) => {
  const bus = await openMemoryBus({});
  t.teardown(() => bus.close());
  await bus.ensureStream({ name: 'AUDIT', subjects: ['audit.>'] });
  for (let i = 1; i <= 4; i += 1)
    await bus.publish(i % 2 ? 'audit.odd' : 'audit.even', enc.encode(String(i)));
  t.same(
    (await run(bus, { stream: 'AUDIT', fromSeq: 3, verify: false })).lines.map((l) => l['seq']),
    [3, 4],
  );
  t.same(
    (await run(bus, { stream: 'AUDIT', subject: 'audit.even', verify: false })).lines.map((l) => l['seq']),
    [2, 4],
  );
  t.same(
    (await run(bus, { stream: 'AUDIT', since: new Date(Date.now() + 60_000), verify: false })).lines,
    [],
  );
});

t.test('verify reports the count and ok on a gap-free stream, and names gaps left by removal', async (t) => {
  const bus = await openMemoryBus({});
  t.teardown(() => bus.close());
  await bus.ensureStream({ name: 'AUDIT', subjects: ['audit.>'] });
  for (let i = 1; i <= 3; i += 1) await bus.publish('audit.a', enc.encode(String(i)));
  const clean = await run(bus, { stream: 'AUDIT', verify: true });
  t.match(clean.lines.at(-1), { verify: 'ok', count: 3, first: 1, last: 3 });
  await bus.ensureStream({ name: 'WQ', subjects: ['wq.>'], retention: 'workqueue' });
  for (let i = 1; i <= 3; i += 1) await bus.publish('wq.a', enc.encode(String(i)));
  const sub = await bus.consume('WQ', { durable: 'one' }, async (m) => {
    if (m.seq !== 2) throw new Error('keep');
  });
  for (let i = 0; i < 50 && (await bus.streamInfo('WQ')).messages !== 2; i += 1)
    await new Promise((r) => setTimeout(r, 20));
  await sub.stop();
  const gapped = await run(bus, { stream: 'WQ', verify: true });
  t.match(gapped.lines.at(-1), { verify: 'gaps', count: 2, gaps: [{ after: 1, next: 3 }] });
  t.equal(gapped.result.gaps.length, 1);
});

t.test('replay reads a JetStream stream the same way', async (t) => {
  const server = await startNatsServer({ t });
  const bus = await openJetStreamBus({ url: server.url });
  t.teardown(() => bus.close());
  await bus.ensureStream({ name: 'AUDIT', subjects: ['audit.>'] });
  for (let i = 1; i <= 3; i += 1) await bus.publish('audit.a', enc.encode(`{"n":${i}}`));
  const { lines } = await run(bus, { stream: 'AUDIT', verify: true });
  t.same(
    lines.slice(0, 3).map((l) => l['data']),
    ['{"n":1}', '{"n":2}', '{"n":3}'],
  );
  t.match(lines.at(-1), { verify: 'ok', count: 3 });
});
