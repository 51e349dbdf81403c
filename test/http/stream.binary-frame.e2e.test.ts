/**
 * ops/events.md "Query channel": the socket reads text frames only. A binary frame, even one holding a good
 * query, is answered `bad_frame` saying so (its id unread, so `null`), and the socket stays open.
 */
import t from 'tap';
import { frame } from '../../scripts/ws-client.js';
import { startNode } from '../harness/serve-node.js';
import { rawWebSocket } from '../harness/ws-raw.js';

interface Frame {
  readonly kind: string;
  readonly data: Record<string, unknown> | null;
}

t.test('a binary frame is answered bad_frame naming binary, and the socket stays open', async (t) => {
  const node = await startNode(t);
  const socket = await rawWebSocket(node.port, '/ws/stream');
  t.teardown(() => socket.destroy());
  t.equal(socket.status, 101);
  const answer = async (): Promise<Frame> => {
    for (;;) {
      const f = JSON.parse(await socket.nextText()) as Frame;
      if (f.kind === 'error' || f.kind === 'result' || f.kind === 'pong') return f;
    }
  };
  const query = JSON.stringify({ kind: 'query', id: 'b1', what: 'org' });
  socket.socket.write(frame(2, Buffer.from(query)));
  const refused = await answer();
  t.equal(refused.kind, 'error');
  t.match(refused.data, { id: null, what: null, error: 'bad_frame', detail: /binary/ });
  socket.sendText(query);
  t.match(await answer(), { kind: 'result', data: { id: 'b1', what: 'org' } }, 'the socket still answers');
});
