/**
 * `fleet` and `setup_integrations`: the answers of `GET /fleet` and `GET /setup/integrations` as questions
 * (the dashboard asks them over its socket), guarded as those routes: a token is needed over HTTP and over
 * the socket's query channel alike, and the answer is the route's (no credential in it).
 */
import t from 'tap';
import { openWs } from '../../scripts/ws-client.js';
import { startNode, TOKEN } from '../harness/serve-node.js';

interface Frame {
  readonly kind: string;
  readonly data: { id?: number; what?: string; error?: string; data?: unknown };
}

/** Asks over the socket and resolves with the `result` or `error` frame of that id. */
async function askOverSocket(url: string, what: string, token?: string): Promise<Frame> {
  const query = token === undefined ? '' : `?token=${encodeURIComponent(token)}`;
  let answered: (frame: Frame) => void = () => undefined;
  const answer = new Promise<Frame>((resolve) => (answered = resolve));
  const socket = await openWs(`${url.replace('http', 'ws')}/ws/stream${query}`, (text) => {
    const frame = JSON.parse(text) as Frame;
    if ((frame.kind === 'result' || frame.kind === 'error') && frame.data.id === 7) answered(frame);
  });
  socket.send(JSON.stringify({ kind: 'query', id: 7, what }));
  const frame = await answer;
  socket.close();
  return frame;
}

t.test('fleet and setup_integrations answer what their routes do, to a token only', async (t) => {
  const node = await startNode(t);
  t.teardown(() => node.run.kill('SIGKILL'));
  const auth = { authorization: `Bearer ${TOKEN}` };
  for (const [what, route] of [
    ['fleet', '/fleet'],
    ['setup_integrations', '/setup/integrations'],
  ] as const) {
    const open = await fetch(`${node.url}/query/${what}`);
    t.equal(open.status, 401, `${what} over HTTP without a token: 401`);
    t.equal(((await open.json()) as { error: string }).error, 'invalid_token', `${what}: invalid_token`);
    const refused = await askOverSocket(node.url, what);
    t.same(
      [refused.kind, refused.data.error],
      ['error', 'unauthorized'],
      `${what} over the socket without a token`,
    );

    const viaRoute = (await (await fetch(`${node.url}${route}`, { headers: auth })).json()) as Record<
      string,
      unknown
    >;
    const viaQuery = await fetch(`${node.url}/query/${what}`, { headers: auth });
    t.equal(viaQuery.status, 200, `${what} with a token`);
    const answer = (await viaQuery.json()) as Record<string, unknown>;
    const socket = await askOverSocket(node.url, what, TOKEN);
    t.equal(socket.kind, 'result', `${what} over the socket with a token`);
    // Presence renews between reads (read_at, renewed_at, expires_at): compare what stays.
    const still = (o: unknown): unknown => {
      const body = o as { node?: string; nodes?: Array<{ id: string }> };
      return what === 'fleet' ? { node: body.node, nodes: body.nodes?.map((n) => n.id) } : o;
    };
    t.same(still(answer), still(viaRoute), `${what} answers what ${route} does`);
    t.same(still(socket.data.data), still(viaRoute), `${what} over the socket answers what ${route} does`);
    t.notMatch(JSON.stringify(answer), new RegExp(TOKEN), 'no credential in the answer');
  }
  node.run.kill('SIGTERM');
  t.equal(await node.run.exited, 0);
});
