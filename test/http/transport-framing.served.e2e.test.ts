/**
 * What a sender sees of a request the transport (uWebSockets.js 20.30) cannot frame, asked of a built
 * `svc serve` over raw sockets: never an answer, only the connection closed, at once for a body framing it
 * refuses (a bad chunk-size line, a chunk extension, Transfer-Encoding with Content-Length, headers over 4 KiB
 * arriving in more than one read) and at the header cut (about 10 s) for a head it cannot parse; where it is
 * lax (the two bytes after a chunk's data go unchecked); and the node's own 400 for a Transfer-Encoding other
 * than `chunked` alone, which the transport reads as chunked whatever it names. The node keeps serving and
 * stores nothing (ops/errors.md "Transport limits", README "Known limits").
 */
import { connect } from 'node:net';
import t, { type Test } from 'tap';
import { startNode, TOKEN, type ServedNode } from '../harness/serve-node.js';
import { keyringYaml } from './fixtures/secrets-node.js';

const auth = { authorization: `Bearer ${TOKEN}` };
/** Well under the transport's header cut (10–12 s): a close before it was the transport's own refusal. */
const AT_ONCE_MS = 5_000;

/** Writes `text` on a fresh connection; resolves with every byte the node wrote and when it closed. */
function send(node: ServedNode, text: string): Promise<{ bytes: string; closedMs: number }> {
  return new Promise((resolve, reject) => {
    const socket = connect(node.port, '127.0.0.1');
    const started = Date.now();
    let bytes = '';
    socket.on('data', (chunk: Buffer) => (bytes += chunk.toString('latin1')));
    // A close while the sender still writes reaches it as a reset: the same refusal, seen mid-write.
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ECONNRESET' && error.code !== 'EPIPE') reject(error);
    });
    socket.on('close', () => resolve({ bytes, closedMs: Date.now() - started }));
    socket.on('connect', () => socket.write(text));
  });
}

const configHead = (headers: string): string =>
  `PUT /config HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${TOKEN}\r\ncontent-type: application/json\r\n` +
  `x-summary: framing\r\n${headers}\r\n`;
const doc = '{"name":"Acme"}';
const chunked = (body: string): string => `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`;

/** The node still answers and holds no document: none of the refused requests reached a handler's write. */
async function untouched(t: Test, node: ServedNode): Promise<void> {
  t.equal((await fetch(`${node.url}/health`)).status, 200, 'the node still serves');
  t.equal((await fetch(`${node.url}/config`, { headers: auth })).status, 404, 'no revision was stored');
}

t.test(
  'a chunked body the transport cannot frame, Transfer-Encoding with Content-Length, or a head past its buffer is closed at once without an answer',
  async (t) => {
    const node = await startNode(t);
    const cases: Array<[string, string]> = [
      ['a chunk size that is not hex', configHead('transfer-encoding: chunked\r\n') + `zz\r\n${doc}\r\n0\r\n\r\n`],
      ['a chunk size past 64 bits', configHead('transfer-encoding: chunked\r\n') + `fffffffffffffffffff\r\n${doc}\r\n`],
      // RFC 9112 7.1.1 allows extensions; this transport refuses them.
      ['a chunk extension', configHead('transfer-encoding: chunked\r\n') + `f;x=y\r\n${doc}\r\n0\r\n\r\n`],
      ['Transfer-Encoding then Content-Length', configHead('transfer-encoding: chunked\r\ncontent-length: 15\r\n') + chunked(doc)],
      ['Content-Length then Transfer-Encoding', configHead('content-length: 15\r\ntransfer-encoding: chunked\r\n') + chunked(doc)],
      // Past the transport's 512 KiB read, so the head arrives in more than one read, past its 4 KiB for that.
      ['headers over 4 KiB in more than one read', configHead(`x-pad: ${'a'.repeat(600 * 1024)}\r\n`)],
    ]; // prettier-ignore
    for (const [what, text] of cases) {
      const { bytes, closedMs } = await send(node, text);
      t.equal(bytes, '', `${what}: no answer, not even a status line`);
      t.ok(closedMs < AT_ONCE_MS, `${what}: closed at once (${closedMs} ms)`);
    }
    const cut = await node.run.waitForLog((l) => l['event'] === 'client_disconnected');
    t.match(cut, { route: '/config', phase: 'body', received: 0 }, 'a refused chunk is logged as a cut body');
    await untouched(t, node);
  },
);

t.test(
  'a request head the transport cannot parse is closed at its header cut, without an answer',
  async (t) => {
    const node = await startNode(t);
    const heads: Array<[string, string]> = [
      ['a request line without a target', 'GET\r\n\r\n'],
      ['a header line without a colon', configHead('garbage\r\n')],
    ];
    // Side by side: each waits out the same cut.
    const sent = await Promise.all(heads.map(([, text]) => send(node, text)));
    for (const [i, [what]] of heads.entries()) {
      const { bytes, closedMs } = sent[i]!;
      t.equal(bytes, '', `${what}: no answer`);
      t.ok(closedMs >= 7_000 && closedMs < 20_000, `${what}: closed at the header cut (${closedMs} ms)`);
    }
    await untouched(t, node);
  },
);

t.test(
  'the transport does not check the two bytes after a chunk; the body is its declared chunks',
  async (t) => {
    const node = await startNode(t, keyringYaml('k1', ['k1', 1]));
    const answer = await send(
      node,
      `PUT /secrets/LAX HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${TOKEN}\r\n` +
        `transfer-encoding: chunked\r\nconnection: close\r\n\r\n3\r\nabcXX0\r\n\r\n`,
    );
    t.match(answer.bytes, /^HTTP\/1\.1 200 /, 'answered as if the chunk ended in CRLF');
    const back = await fetch(`${node.url}/secrets/LAX?reveal=true`, { headers: auth });
    t.equal(await back.text(), 'abc', 'the stored value is the chunk alone');
  },
);

t.test(
  'a Transfer-Encoding other than chunked alone is answered 400 unsupported_transfer_coding and closed, its body unread',
  async (t) => {
    const node = await startNode(t, keyringYaml('k1', ['k1', 1]));
    const secretHead = (te: string): string =>
      `PUT /secrets/CODED HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${TOKEN}\r\n${te}\r\n`;
    const abc = '3\r\nabc\r\n0\r\n\r\n';
    const cases: Array<[string, string]> = [
      // RFC 9112 6.1: a coding the node does not implement (it would answer 501; the catalogue says 400).
      ['gzip before chunked', secretHead('transfer-encoding: gzip, chunked\r\n') + abc],
      ['an unknown coding before chunked', secretHead('transfer-encoding: x-custom, chunked\r\n') + abc],
      ['chunked applied twice', secretHead('transfer-encoding: chunked, chunked\r\n') + abc],
      ['codings over two field lines', secretHead('transfer-encoding: gzip\r\ntransfer-encoding: chunked\r\n') + abc],
      // RFC 9112 6.1: a final coding other than chunked leaves the body's end unknown: 400, then close.
      ['a final coding other than chunked', secretHead('transfer-encoding: chunked, gzip\r\n') + abc],
      ['gzip alone, chunk-framed', secretHead('transfer-encoding: gzip\r\n') + abc],
      ['gzip alone, a plain body', secretHead('transfer-encoding: gzip\r\n') + 'abc'],
      ['identity', secretHead('transfer-encoding: identity\r\n') + abc],
    ]; // prettier-ignore
    for (const [what, text] of cases) {
      const { bytes } = await send(node, text);
      t.match(bytes, /^HTTP\/1\.1 400 /, `${what}: 400`);
      t.match(bytes, /\r\nconnection: close\r\n/i, `${what}: the connection is closed`);
      const body = JSON.parse(bytes.slice(bytes.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;
      t.equal(body['error'], 'unsupported_transfer_coding', `${what}: coded`);
      t.match(body['detail'], /Transfer-Encoding/, `${what}: the detail names the header`);
    }
    const logged = await node.run.waitForLog((l) => l['event'] === 'unsupported_transfer_coding');
    t.match(logged, { path: '/secrets/CODED' }, 'the refusal is logged');
    const back = await fetch(`${node.url}/secrets/CODED`, { headers: auth });
    t.equal(back.status, 404, 'nothing was stored');
    const plain = await send(node, secretHead('transfer-encoding: Chunked\r\nconnection: close\r\n') + abc);
    t.match(plain.bytes, /^HTTP\/1\.1 200 /, 'chunked alone, in any case, is read as before');
  },
);
