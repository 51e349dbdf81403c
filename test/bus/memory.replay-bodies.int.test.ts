/**
 * The memory engine's replay reads from its database without reading what the reader does not need: a
 * page holds a few MiB of bodies at most, a subject filter reads only the matching messages, and
 * `skipBodies` leaves out the bodies of the messages that carry the named header. The store is reopened
 * before each read, so the database answers (not the in-memory tail of what was just written).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import type { Bus, ReplayOptions, StoredMessage } from '../../bus/index.js';
import { openMemoryBus } from '../../bus/memory/index.js';

const MiB = 1024 * 1024;

async function reopened(t: Test, write: (bus: Bus) => Promise<void>): Promise<Bus> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-replay-bodies-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const writer = await openMemoryBus({ storeDir: dir });
  await writer.ensureStream({ name: 'S', subjects: ['s.>'] });
  await write(writer);
  await writer.close();
  const bus = await openMemoryBus({ storeDir: dir });
  t.teardown(() => bus.close());
  return bus;
}

async function all(bus: Bus, opts: ReplayOptions): Promise<StoredMessage[]> {
  const out: StoredMessage[] = [];
  for await (const m of bus.replay('S', opts)) out.push(m);
  return out;
}

const body = (bytes: number, fill: number): Uint8Array => new Uint8Array(bytes).fill(fill);

t.test('replays of large bodies give every message in order, filtered or not', async (t) => {
  // 12 bodies of 1 MiB among 12 small ones: more than one page of bodies, whatever the filter.
  const bus = await reopened(t, async (bus) => {
    for (let i = 0; i < 12; i++) {
      await bus.publish('s.big', body(MiB, i));
      await bus.publish('s.small', body(10, i));
    }
  });
  const seqs = (list: StoredMessage[]): number[] => list.map((m) => m.seq);
  const every = await all(bus, {});
  t.same(
    seqs(every),
    Array.from({ length: 24 }, (_, i) => i + 1),
  );
  t.ok(
    every.every((m) => m.data.byteLength === (m.subject === 's.big' ? MiB : 10)),
    'bodies whole',
  );
  const small = await all(bus, { subject: 's.small' });
  t.same(
    seqs(small),
    Array.from({ length: 12 }, (_, i) => 2 * i + 2),
    'one subject',
  );
  const big = await all(bus, { subject: 's.big' });
  t.same(
    seqs(big),
    Array.from({ length: 12 }, (_, i) => 2 * i + 1),
    'one subject of large bodies',
  );
  t.same(
    big.map((m) => m.data[0]),
    Array.from({ length: 12 }, (_, i) => i),
    'each its own body',
  );
  const wild = await all(bus, { subject: 's.*', fromSeq: 5, toSeq: 20 });
  t.same(
    seqs(wild),
    Array.from({ length: 16 }, (_, i) => i + 5),
    'a wildcard within bounds',
  );
  t.same(seqs(await all(bus, { subject: 's.none' })), [], 'no match');
});

t.test('skipBodies leaves out only the bodies of that subject carrying that header', async (t) => {
  const header = 'Svc-Head';
  const bus = await reopened(t, async (bus) => {
    await bus.publish('s.doc', body(MiB, 1), { headers: { [header]: '{"id":1}' } });
    await bus.publish('s.doc', body(100, 2));
    await bus.publish('s.other', body(100, 3), { headers: { [header]: 'x' } });
    await bus.publish('s.doc', body(100, 4), { headers: { 'X-Other': `"${header}":` } });
  });
  const skipBodies = { subject: 's.doc', header };
  for (const subject of [undefined, 's.doc', 's.*']) {
    const read = await all(bus, { skipBodies, ...(subject !== undefined ? { subject } : {}) });
    const doc = read.find((m) => m.seq === 1);
    t.equal(doc?.data.byteLength, 0, `the body left out (filter ${subject ?? 'none'})`);
    t.same(doc?.headers, { [header]: '{"id":1}' }, 'the header kept');
    t.same(
      read.filter((m) => m.seq !== 1).map((m) => [m.seq, m.data.byteLength, m.data[0]]),
      subject === 's.doc'
        ? [
            [2, 100, 2],
            [4, 100, 4],
          ]
        : [
            [2, 100, 2],
            [3, 100, 3],
            [4, 100, 4],
          ],
      'no header, another subject, or the name only inside a value: whole',
    );
  }
  t.equal((await all(bus, {}))[0]?.data.byteLength, MiB, 'without skipBodies the body is read');
  t.equal((await bus.getMessage('S', 1))?.data.byteLength, MiB, 'a read by sequence is whole');
});
