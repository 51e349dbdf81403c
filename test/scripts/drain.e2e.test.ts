/**
 * `svc serve`'s drain on real children (README "Stop it with Ctrl-C"; ops/turn-engine.md "Drain"): a turn
 * running at SIGTERM keeps every tool it uses through its grace, the api listener keeps answering probes
 * (and refusing writes) until the turns have settled, and a live-stream socket is closed with 1001.
 */
import { connect } from 'node:net';
import t, { type Test } from 'tap';
import { startNode, TOKEN } from '../harness/serve-node.js';
import { until } from '../harness/until.js';

type Json = Record<string, unknown>;

/** Opens `/ws/stream`; `code` resolves, once the connection ends, with the code of the server's close frame. */
function openStream(t: Test, port: number): { opened: Promise<void>; code: Promise<number | null> } {
  const socket = connect(port, '127.0.0.1');
  t.teardown(() => socket.destroy());
  let bytes = Buffer.alloc(0);
  let onOpen: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => (onOpen = resolve));
  socket.on('data', (chunk: Buffer) => {
    bytes = Buffer.concat([bytes, chunk]);
    if (bytes.includes('\r\n\r\n')) onOpen();
  });
  socket.on('error', () => socket.destroy());
  socket.write(
    [
      'GET /ws/stream HTTP/1.1',
      `Host: 127.0.0.1:${port}`,
      'Upgrade: websocket',
      'Connection: Upgrade',
      'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
      'Sec-WebSocket-Version: 13',
      `Authorization: Bearer ${TOKEN}`,
      '\r\n',
    ].join('\r\n'),
  );
  const code = new Promise<number | null>((resolve) =>
    socket.on('close', () => {
      // Walk the server's frames (unmasked) after the 101 head; the close frame starts with its code.
      let at = bytes.indexOf('\r\n\r\n') + 4;
      while (at > 3 && at + 2 <= bytes.length) {
        const opcode = bytes[at]! & 0x0f;
        let len = bytes[at + 1]! & 0x7f;
        let head = 2;
        if (len === 126) [len, head] = [bytes.readUInt16BE(at + 2), 4];
        else if (len === 127) [len, head] = [Number(bytes.readBigUInt64BE(at + 2)), 10];
        if (opcode === 8) return resolve(len >= 2 ? bytes.readUInt16BE(at + head) : null);
        at += head + len;
      }
      resolve(null);
    }),
  );
  return { opened, code };
}

t.test('a live-stream socket open at SIGTERM is closed with 1001, not dropped', async (t) => {
  const node = await startNode(t);
  const ws = openStream(t, node.port);
  await ws.opened;
  await until(
    async () => (await (await fetch(`${node.url}/health`)).json()) as Json,
    (h) => h['clients'] === 1,
  );
  node.run.kill('SIGTERM');
  t.equal(await ws.code, 1001, 'the close frame says the node is going away');
  t.equal(await node.run.exited, 0);
});
