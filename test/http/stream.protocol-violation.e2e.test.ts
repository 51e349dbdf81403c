/**
 * ops/events.md "WS /ws/stream": a frame that breaks RFC 6455 (invalid UTF-8 in a text frame, an unmasked
 * client frame, a reserved opcode, a continuation with nothing to continue) is cut by the transport without
 * a close frame (the client sees 1006), and costs that socket alone: a socket beside it keeps its pushes and
 * answers, and the node keeps counting the sockets it serves.
 */
import t from 'tap';
import { frame } from '../../scripts/ws-client.js';
import { startNode } from '../harness/serve-node.js';
import { until } from '../harness/until.js';
import { rawWebSocket, type RawUpgrade } from '../harness/ws-raw.js';

interface Frame {
  readonly kind: string;
  readonly data: unknown;
}

async function next(u: RawUpgrade, kind: string): Promise<Frame> {
  for (;;) {
    const f = JSON.parse(await u.nextText()) as Frame;
    if (f.kind === kind) return f;
  }
}

const violations: ReadonlyArray<readonly [string, Buffer]> = [
  ['invalid UTF-8 in a text frame', frame(1, Buffer.from([0x7b, 0xff, 0xfe, 0x7d]))],
  ['an unmasked client frame', Buffer.concat([Buffer.from([0x81, 15]), Buffer.from('{"kind":"ping"}')])],
  ['a reserved opcode', frame(3, Buffer.from('{"kind":"ping"}'))],
  ['a continuation with nothing to continue', frame(0, Buffer.from('{"kind":"ping"}'))],
];

t.test('a frame breaking RFC 6455 cuts its own socket only; the node serves the others', async (t) => {
  const node = await startNode(t);
  const bystander = await rawWebSocket(node.port, '/ws/stream');
  t.teardown(() => bystander.destroy());
  t.equal((await next(bystander, 'snapshot')).kind, 'snapshot');
  for (const [what, bytes] of violations) {
    const u = await rawWebSocket(node.port, '/ws/stream');
    t.teardown(() => u.destroy());
    await next(u, 'snapshot');
    u.socket.write(bytes);
    // A ping behind the violation is never answered: the socket is cut before it is read.
    u.sendText('{"kind":"ping"}');
    t.same(await u.closed, { code: null, reason: '' }, `${what}: cut without a close frame`);
    bystander.sendText('{"kind":"ping"}');
    t.same((await next(bystander, 'pong')).data, null, `${what}: the socket beside it is answered`);
  }
  const health = await until(
    async () => (await (await fetch(`${node.url}/health`)).json()) as { clients: number },
    (h) => h.clients === 1,
  );
  t.equal(health.clients, 1, 'the cut sockets are no longer counted; the bystander is');
});
