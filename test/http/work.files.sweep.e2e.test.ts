/**
 * The file sweep (ops/work-tracker.md "Files"): bytes no listed file's current version references leave
 * the file store once the grace has passed both since they were written and since they became unreferenced
 * (a sweep found them so, or no file changed since); current and shared content stays, bytes stored for a version not yet appended stay, a node
 * whose state lags the log decides nothing, and a read under way of a version replaced meanwhile finishes.
 * The sweep's and the log's clock is moved (the store's stays real), so no test waits for the grace.
 */
import { createHash, randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import t, { type Test } from 'tap';
import { startFileSweep } from '../../actors/work/work.files.sweep.js';
import type { WorkStateView } from '../../actors/work/work.types.js';
import { openBus, type Bus } from '../../bus/index.js';
import { openMemoryBus } from '../../bus/memory/index.js';
import { kvBlobs } from '../../http/index.js';
import { startNatsServer } from '../harness/nats-server.js';
import { OPS, call } from './fixtures/gateway-harness.js';
import { headEnd, parseHead, wire } from './fixtures/wire.js';
import { startWorkHarness, type WorkHarness } from './fixtures/work-harness.js';

const HOUR = 3_600_000;
const CHUNK = 256 * 1024;
const sha = (bytes: string | Buffer): string => createHash('sha256').update(bytes).digest('hex');

const put = (url: string, body: string | Buffer, ifMatch?: string) =>
  call(url, {
    method: 'PUT',
    headers: {
      authorization: OPS,
      'content-type': 'text/plain',
      ...(ifMatch ? { 'if-match': ifMatch } : {}),
    },
    body,
  });
const del = (url: string, ifMatch: string) =>
  call(url, { method: 'DELETE', headers: { authorization: OPS, 'if-match': ifMatch } });

/** The tracker behind a gateway on `bus`, and a sweep whose clock runs `ahead` ms of the real one. */
async function tracker(t: Test, bus: Bus) {
  const clock = { ahead: 0 };
  // The log's records are stamped on the test's clock too; the store's chunk times stay real.
  const w = await startWorkHarness(t, { bus, now: () => new Date(Date.now() + clock.ahead) });
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino(
    { level: 'info' },
    new Writable({
      write: (c: Buffer, _e, done) => (
        lines.push(JSON.parse(c.toString()) as Record<string, unknown>),
        done()
      ),
    }),
  );
  /** A node's sweep of this store, judging by `view`, on the test's clock. */
  const node = (view: WorkStateView = w.view) => {
    const sweep = startFileSweep({
      bus,
      view,
      kv: w.files,
      logger,
      everyMs: 24 * HOUR,
      graceMs: HOUR,
      now: () => new Date(Date.now() + clock.ahead),
    });
    t.teardown(() => sweep.stop());
    return sweep;
  };
  const sweep = node();
  /** Which of the contents' chunks the store holds. */
  const held = async (...contents: string[]): Promise<string[]> => {
    const keys = await w.files.keys();
    return contents.filter((c) => keys.some((k) => k.startsWith(`${c}.`)));
  };
  return { w, sweep, node, clock, lines, held };
}

async function memoryBus(t: Test): Promise<Bus> {
  const bus = await openMemoryBus({});
  t.teardown(() => bus.close());
  return bus;
}

async function jetStreamBus(t: Test): Promise<Bus> {
  const server = await startNatsServer({ t });
  const bus = await openBus({ type: 'jetstream', url: server.url });
  t.teardown(() => bus.close());
  return bus;
}

async function replacedAndDeleted(t: Test, w: WorkHarness, s: Awaited<ReturnType<typeof tracker>>) {
  const url = (path: string) => `${w.base}/work/files/ENG/${path}`;
  const big = randomBytes(2 * CHUNK + 17);
  t.equal((await put(url('plan.md'), 'first plan')).status, 201);
  t.equal((await put(url('plan.md'), 'second plan', '"1"')).status, 200);
  t.equal((await put(url('data.bin'), big)).status, 201);
  t.equal((await del(url('data.bin'), '"1"')).status, 200);
  t.equal((await put(url('a/shared.md'), 'shared')).status, 201);
  t.equal((await put(url('b/shared.md'), 'shared')).status, 201);
  t.equal((await del(url('a/shared.md'), '"1"')).status, 200);
  const [replaced, current, deleted, shared] = [
    sha('first plan'),
    sha('second plan'),
    sha(big),
    sha('shared'),
  ];

  const first = await s.sweep.sweep();
  t.same(first?.removed, { chunks: 0, bytes: 0, contents: 0 }, 'nothing goes when first found unreferenced');
  t.equal(first?.waiting, 4, 'the replaced version and the deleted file (3 chunks) wait out the grace');
  s.clock.ahead = HOUR / 2;
  t.same((await s.sweep.sweep())?.removed.chunks, 0, 'nor within the grace');
  t.same(await s.held(replaced, current, deleted, shared), [replaced, current, deleted, shared]);

  s.clock.ahead = HOUR + 60_000;
  const swept = await s.sweep.sweep();
  t.same(swept, { removed: { chunks: 4, bytes: 'first plan'.length + big.length, contents: 2 }, waiting: 0 });
  t.same(
    await s.held(replaced, current, deleted, shared),
    [current, shared],
    'current and shared content stay',
  );
  const line = s.lines.find((l) => l.event === 'work_files_swept');
  t.same(
    line?.removed,
    { chunks: 4, bytes: 'first plan'.length + big.length, contents: 2 },
    'logged in counts',
  );
  t.notMatch(JSON.stringify(s.lines), /first plan|second plan/, 'no content in the log');

  const read = await call(url('plan.md'));
  t.equal(read.status, 200, 'the current version still reads');
  t.equal(read.text, 'second plan');
  t.equal((await call(url('b/shared.md'))).text, 'shared', 'so does content another file shared');
  t.equal((await call(url('data.bin'))).status, 404, 'a deleted file stays not found');
  t.equal((await put(url('data.bin'), big)).status, 200, 'deleted content written again is stored afresh');
  t.ok(Buffer.from(await (await fetch(url('data.bin'))).arrayBuffer()).equals(big), 'and reads back whole');
  s.clock.ahead = 3 * HOUR;
  t.same((await s.sweep.sweep())?.removed.chunks, 0, 'and no later sweep takes it');
}

t.test(
  "memory bus: replaced and deleted files' bytes go after the grace, current and shared stay",
  async (t) => {
    const bus = await memoryBus(t);
    const s = await tracker(t, bus);
    await replacedAndDeleted(t, s.w, s);
  },
);

t.test(
  "JetStream: replaced and deleted files' bytes go after the grace, current and shared stay",
  async (t) => {
    const bus = await jetStreamBus(t);
    const s = await tracker(t, bus);
    await replacedAndDeleted(t, s.w, s);
  },
);

async function storedNotListed(t: Test, s: Awaited<ReturnType<typeof tracker>>) {
  const url = `${s.w.base}/work/files/ENG/notes.md`;
  const blobs = kvBlobs(s.w.files);
  t.equal((await put(url, 'draft')).status, 201);
  t.equal((await put(url, 'final', '"1"')).status, 200);
  // A sweep two hours ago found the draft unreferenced; a PUT of it again has stored its bytes just now
  // and not yet appended its version.
  s.clock.ahead = -2 * HOUR;
  await s.sweep.sweep();
  await blobs.put(sha('draft'), Buffer.from('draft'));
  const lost = Buffer.from('a write that lost its race');
  await blobs.put(sha(lost), lost);
  s.clock.ahead = 0;
  const now = await s.sweep.sweep();
  t.same(now?.removed.chunks, 0, 'bytes written within the grace stay, though found unreferenced long ago');
  t.same(await s.held(sha('draft'), sha(lost)), [sha('draft'), sha(lost)]);
  const listed = await put(url, 'draft', '"2"');
  t.equal(listed.status, 200, 'the version is appended');
  t.equal((await call(url)).text, 'draft', 'and its bytes read');

  s.clock.ahead = 2 * HOUR;
  t.same(
    (await s.sweep.sweep())?.removed,
    { chunks: 2, bytes: lost.length + 'final'.length, contents: 2 },
    'a lost write goes, and so does the final version no file change has touched since it was replaced',
  );
  t.same(await s.held(sha('draft'), sha('final'), sha(lost)), [sha('draft')]);
  t.equal((await call(url)).text, 'draft', 'the current version still reads');
}

async function restarted(t: Test, s: Awaited<ReturnType<typeof tracker>>) {
  const url = (path: string) => `${s.w.base}/work/files/ENG/${path}`;
  t.equal((await put(url('old.md'), 'old text')).status, 201);
  t.equal((await put(url('old.md'), 'new text', '"1"')).status, 200);
  // A node started half a grace after the last file change: its first sweep has found nothing before.
  s.clock.ahead = HOUR / 2;
  t.same((await s.node().sweep())?.removed.chunks, 0, 'within the grace of the last file change it waits');
  // One started a grace after it: no file changed since, so nothing became unreferenced in the grace.
  s.clock.ahead = HOUR + 60_000;
  t.same(
    (await s.node().sweep())?.removed,
    { chunks: 1, bytes: 'old text'.length, contents: 1 },
    'its first sweep removes what the last change left unreferenced',
  );
  t.same(await s.held(sha('old text'), sha('new text')), [sha('new text')]);
}

t.test(
  'memory bus: a node started a grace after the last file change sweeps at its first turn',
  async (t) => {
    await restarted(t, await tracker(t, await memoryBus(t)));
  },
);

t.test('memory bus: bytes stored for a version not yet appended stay within the grace', async (t) => {
  await storedNotListed(t, await tracker(t, await memoryBus(t)));
});

t.test('JetStream: bytes stored for a version not yet appended stay within the grace', async (t) => {
  await storedNotListed(t, await tracker(t, await jetStreamBus(t)));
});

async function writtenAgainWhileJudged(t: Test, s: Awaited<ReturnType<typeof tracker>>) {
  const url = `${s.w.base}/work/files/ENG/page.md`;
  t.equal((await put(url, 'gone')).status, 201);
  t.equal((await put(url, 'kept', '"1"')).status, 200);
  await s.sweep.sweep();
  // A PUT of the same content stores it again between the sweep's read of the chunk and its delete.
  const get = s.w.files.get.bind(s.w.files);
  Object.assign(s.w.files, {
    get: async (key: string) => {
      const entry = await get(key);
      await kvBlobs(s.w.files).put(sha('gone'), Buffer.from('gone'));
      return entry;
    },
  });
  s.clock.ahead = 2 * HOUR;
  t.same(await s.sweep.sweep(), { removed: { chunks: 0, bytes: 0, contents: 0 }, waiting: 1 }, 'not removed');
  Object.assign(s.w.files, { get });
  t.same(await s.held(sha('gone')), [sha('gone')], 'the chunk written again stays');
  t.equal((await put(url, 'gone', '"2"')).status, 200);
  t.equal((await call(url)).text, 'gone', 'and reads once its version is listed');
}

t.test('memory bus: content written again while a sweep judged it stays', async (t) => {
  await writtenAgainWhileJudged(t, await tracker(t, await memoryBus(t)));
});

t.test('JetStream: content written again while a sweep judged it stays', async (t) => {
  await writtenAgainWhileJudged(t, await tracker(t, await jetStreamBus(t)));
});

t.test("a node whose state lags the log never removes a newer version's bytes", async (t) => {
  const bus = await jetStreamBus(t);
  const s = await tracker(t, bus);
  const url = `${s.w.base}/work/files/ENG/report.md`;
  t.equal((await put(url, 'old report')).status, 201);
  // The lagging node's state: version 1 listed, the log's later records not applied within its wait.
  const stale = structuredClone(s.w.view.state());
  const lagging = s.node({ state: () => stale, until: (seq) => Promise.resolve(seq <= stale.seq) });
  t.equal((await put(url, 'new report', '"1"')).status, 200);

  for (const ahead of [0, 2 * HOUR, 4 * HOUR]) {
    s.clock.ahead = ahead;
    t.equal(await lagging.sweep(), null, `nothing decided ${ahead / HOUR} h on`);
  }
  t.same(await s.held(sha('old report'), sha('new report')), [sha('old report'), sha('new report')]);
  t.equal((await call(url)).text, 'new report', 'the newer version reads');

  s.clock.ahead = 0;
  await s.sweep.sweep();
  s.clock.ahead = 2 * HOUR;
  t.same((await s.sweep.sweep())?.removed.contents, 1, 'a node caught up removes the old version');
  t.same(await s.held(sha('old report'), sha('new report')), [sha('new report')]);
  t.equal((await call(url)).text, 'new report');
});

t.test('two nodes sweeping at once remove each chunk once, and no current one', async (t) => {
  const s = await tracker(t, await jetStreamBus(t));
  const peer = s.node();
  const bytes = randomBytes(3 * CHUNK);
  const url = `${s.w.base}/work/files/ENG/set.bin`;
  t.equal((await put(url, bytes)).status, 201);
  t.equal((await put(url, 'replaced', '"1"')).status, 200);
  await Promise.all([s.sweep.sweep(), peer.sweep()]);
  s.clock.ahead = 2 * HOUR;
  const both = await Promise.all([s.sweep.sweep(), peer.sweep()]);
  t.equal(both[0]!.removed.chunks + both[1]!.removed.chunks, 3, 'each chunk removed by one of them');
  t.same(await s.held(sha(bytes), sha('replaced')), [sha('replaced')]);
  t.equal((await call(url)).text, 'replaced');
});

t.test('a read under way of a version replaced meanwhile gets every byte though a sweep runs', async (t) => {
  const s = await tracker(t, await memoryBus(t));
  const bytes = randomBytes(8 * 1024 * 1024);
  t.equal((await put(`${s.w.base}/work/files/ENG/big.bin`, bytes)).status, 201);
  const reader = await wire(s.w.h.gw.port);
  t.teardown(() => reader.socket.destroy());
  reader.socket.write('GET /work/files/ENG/big.bin HTTP/1.1\r\nHost: x\r\n\r\n');
  await reader.until((got) => headEnd(got) >= 0);
  reader.socket.pause();

  // Replaced two hours after its bytes were stored (they are past the grace, the replacement is not).
  s.clock.ahead = 2 * HOUR;
  t.equal((await put(`${s.w.base}/work/files/ENG/big.bin`, 'small now', '"1"')).status, 200);
  t.same((await s.sweep.sweep())?.removed.chunks, 0, 'just replaced: its bytes are kept for the grace');
  reader.socket.resume();
  const whole = await reader.until((got) => got.length - (headEnd(got) + 4) >= bytes.length);
  const answer = parseHead(whole);
  t.equal(answer.status, 200);
  t.ok(whole.subarray(answer.bodyAt).equals(bytes), 'the reader got the replaced version whole');

  s.clock.ahead = 4 * HOUR;
  t.same((await s.sweep.sweep())?.removed, { chunks: 32, bytes: bytes.length, contents: 1 }, 'then it goes');
});
