/**
 * `GET /work/files/{project}/{path...}` streams (SPEC "Work"): bytes come chunk by chunk from the file
 * store as the client takes them, with `Content-Length` and the version as `ETag`; a client that stops
 * reading or leaves costs the node nothing lasting; a chunk lost under a listed version answers 503
 * before the head, and cuts the connection after it.
 */
import { createHash, randomBytes } from 'node:crypto';
import t from 'tap';
import type { Kv } from '../../bus/index.js';
import { OPS, call } from './fixtures/gateway-harness.js';
import { headEnd, parseHead, wire } from './fixtures/wire.js';
import { startWorkHarness } from './fixtures/work-harness.js';

const CHUNK = 256 * 1024;

const put = (url: string, body: Buffer) =>
  call(url, {
    method: 'PUT',
    headers: { authorization: OPS, 'content-type': 'application/octet-stream' },
    body,
  });

/** Counts the file store's reads (the blob store holds this very object). */
function countReads(kv: Kv): { count: () => number } {
  let reads = 0;
  const get = kv.get.bind(kv);
  Object.assign(kv, {
    get: (key: string) => {
      reads++;
      return get(key);
    },
  });
  return { count: () => reads };
}

t.test('a file of many chunks comes back byte for byte, with Content-Length and ETag', async (t) => {
  const w = await startWorkHarness(t);
  const bytes = randomBytes(1024 * 1024 + 17);
  const url = `${w.base}/work/files/ENG/data/blob.bin`;
  t.equal((await put(url, bytes)).status, 201);

  const res = await fetch(url);
  t.equal(res.status, 200);
  t.equal(res.headers.get('content-length'), String(bytes.length));
  t.equal(res.headers.get('etag'), '"1"');
  t.equal(res.headers.get('content-type'), 'application/octet-stream');
  t.equal(res.headers.get('x-content-type-options'), 'nosniff', 'the security headers of every answer');
  t.match(res.headers.get('content-security-policy'), /default-src 'none'/);
  t.ok(Buffer.from(await res.arrayBuffer()).equals(bytes), 'byte-identical');

  const empty = `${w.base}/work/files/ENG/empty.txt`;
  t.equal((await put(empty, Buffer.alloc(0))).status, 201);
  const none = await fetch(empty);
  t.equal(none.headers.get('content-length'), '0');
  t.equal((await none.arrayBuffer()).byteLength, 0, 'an empty file is an empty body');
});

t.test('a slow reader gets every byte; one that stops and leaves stops the reading', async (t) => {
  const w = await startWorkHarness(t);
  const bytes = randomBytes(8 * 1024 * 1024);
  const chunks = bytes.length / CHUNK;
  t.equal((await put(`${w.base}/work/files/ENG/big.bin`, bytes)).status, 201);
  const reads = countReads(w.files);
  const request = 'GET /work/files/ENG/big.bin HTTP/1.1\r\nHost: x\r\n\r\n';

  // Slow: the client takes a little, then nothing for a while, again and again.
  const slow = await wire(w.h.gw.port);
  t.teardown(() => slow.socket.destroy());
  slow.socket.on('data', () => {
    slow.socket.pause();
    setTimeout(() => slow.socket.resume(), 2);
  });
  slow.socket.write(request);
  const whole = await slow.until((got) => {
    const end = headEnd(got);
    return end >= 0 && got.length - (end + 4) >= bytes.length;
  });
  const answer = parseHead(whole);
  t.equal(answer.status, 200);
  t.equal(answer.headers.get('content-length'), String(bytes.length));
  t.ok(whole.subarray(answer.bodyAt).equals(bytes), 'the slow reader got every byte, in order');
  t.equal(reads.count(), chunks, 'each chunk read once');

  // Stopped: the client reads its head and then nothing; the node reads no further than the client's
  // socket buffers hold (well short of the file), and stops when it leaves.
  const before = reads.count();
  const stuck = await wire(w.h.gw.port);
  stuck.socket.write(request);
  await stuck.until((got) => headEnd(got) >= 0);
  stuck.socket.pause();
  stuck.socket.destroy();
  const gone = await w.h.waitForLog((l) => l.event === 'client_disconnected' && l.phase === 'answer');
  t.equal(gone.size, bytes.length);
  t.ok(Number(gone.bytes) < bytes.length, `cut after ${String(gone.bytes)} bytes`);
  t.ok(reads.count() - before < chunks, `read ${reads.count() - before} of ${chunks} chunks`);

  const health = await call(`${w.base}/health`);
  t.equal(health.status, 200, 'the node still answers');
  const again = await fetch(`${w.base}/work/files/ENG/big.bin`);
  t.ok(Buffer.from(await again.arrayBuffer()).equals(bytes), 'and still serves the file whole');
});

t.test('a chunk lost after the first: the head is out, so the connection is cut short', async (t) => {
  const w = await startWorkHarness(t);
  const bytes = randomBytes(3 * CHUNK);
  t.equal((await put(`${w.base}/work/files/ENG/torn.bin`, bytes)).status, 201);
  const sha = createHash('sha256').update(bytes).digest('hex');
  await w.files.delete(`${sha}.1`);

  const c = await wire(w.h.gw.port);
  t.teardown(() => c.socket.destroy());
  c.socket.write('GET /work/files/ENG/torn.bin HTTP/1.1\r\nHost: x\r\n\r\n');
  await c.closed;
  const got = c.bytes();
  const head = parseHead(got);
  t.equal(head.status, 200);
  t.equal(head.headers.get('content-length'), String(bytes.length));
  t.ok(got.length - head.bodyAt < bytes.length, 'the body is shorter than announced');
  t.ok(got.subarray(head.bodyAt).equals(bytes.subarray(0, got.length - head.bodyAt)), 'what came is right');
  const line = await w.h.waitForLog((l) => l.event === 'answer_cut');
  t.equal(line.bytes, CHUNK, 'cut after the first chunk');
  t.equal((await call(`${w.base}/health`)).status, 200, 'the node still answers');

  await w.files.delete(`${sha}.0`);
  const lost = await call(`${w.base}/work/files/ENG/torn.bin`);
  t.equal(lost.status, 503, 'the first chunk lost: a coded answer');
  t.equal(lost.json?.error, 'content_unavailable');
});

t.test('closing the listener mid-stream cuts the answer and stops the reading', async (t) => {
  const w = await startWorkHarness(t);
  const bytes = randomBytes(8 * 1024 * 1024);
  t.equal((await put(`${w.base}/work/files/ENG/big.bin`, bytes)).status, 201);
  const stuck = await wire(w.h.gw.port);
  t.teardown(() => stuck.socket.destroy());
  stuck.socket.write('GET /work/files/ENG/big.bin HTTP/1.1\r\nHost: x\r\n\r\n');
  await stuck.until((got) => headEnd(got) >= 0);
  stuck.socket.pause();
  await w.h.gw.close();
  const line = await w.h.waitForLog((l) => l.event === 'client_disconnected' && l.phase === 'answer');
  t.ok(Number(line.bytes) < bytes.length, `stopped after ${String(line.bytes)} bytes`);
  stuck.socket.resume();
  await stuck.closed;
  t.ok(stuck.bytes().length < bytes.length, 'the client got a short body and a closed connection');
});
