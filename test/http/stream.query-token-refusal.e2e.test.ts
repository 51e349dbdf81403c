/**
 * ops/events.md "Query channel": a catalogued refusal on the socket carries its own `code` and `status`, as
 * the route answers it, with the route's `detail` and `hint`. A query frame whose `token` names no one is the
 * route's refusal of a wrong bearer (401 `invalid_token`), so it is answered with that, not a bare class.
 */
import t from 'tap';
import { startNode, TOKEN } from '../harness/serve-node.js';
import { rawWebSocket } from '../harness/ws-raw.js';

interface Frame {
  readonly kind: string;
  readonly data: Record<string, unknown>;
  readonly ts: string;
}

t.test("a query frame's refused token is answered as the route refuses a wrong bearer", async (t) => {
  const node = await startNode(t);
  const route = await fetch(`${node.url}/query/org`, { headers: { authorization: 'Bearer not-a-token' } });
  t.equal(route.status, 401);
  const refused = (await route.json()) as Record<string, unknown>;

  const socket = await rawWebSocket(node.port, `/ws/stream?token=${TOKEN}`);
  t.teardown(() => socket.destroy());
  t.equal(socket.status, 101);
  const next = async (): Promise<Frame> => JSON.parse(await socket.nextText()) as Frame;
  t.equal((await next()).kind, 'snapshot');
  socket.sendText(JSON.stringify({ kind: 'query', id: 'q1', what: 'org', token: 'not-a-token' }));
  let answer = await next();
  while (answer.kind !== 'error' && answer.kind !== 'result') answer = await next();
  t.same(answer, {
    kind: 'error',
    data: {
      id: 'q1',
      what: 'org',
      error: 'unauthorized',
      code: refused['error'],
      status: 401,
      detail: refused['detail'],
      hint: refused['hint'],
    },
    ts: answer.ts,
  });
  t.notMatch(JSON.stringify(answer), /not-a-token/, 'the candidate is never echoed');
});
