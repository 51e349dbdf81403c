/**
 * Spec "Authentication" 2 and 4 with `api.auth.tokens` restart-only (Tier A): a token is revoked by editing
 * the file and restarting. The socket it opened is closed at the stop with 1001 (the node going away, not a
 * cut); on the node served again it opens nothing on any channel (`Authorization`, `?token=`, the
 * `svc.token.` subprotocol) and a query frame carrying it is refused as a wrong bearer, while the token kept
 * still opens the socket and answers the guarded question.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import t from 'tap';
import { serveAgain, startNode, TOKEN } from '../harness/serve-node.js';
import { rawWebSocket, type RawUpgrade } from '../harness/ws-raw.js';

const REVOKED = 'revoked-operator-token-0123456789';

interface Frame {
  readonly kind: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- frames are read loosely in tests
  readonly data: any;
}

async function next(u: RawUpgrade, match: (f: Frame) => boolean): Promise<Frame> {
  for (;;) {
    const f = JSON.parse(await u.nextText()) as Frame;
    if (match(f)) return f;
  }
}

const protocolOf = (token: string): string =>
  `svc.stream, svc.token.${Buffer.from(token).toString('base64url')}`;

t.test(
  'a token dropped from api.auth.tokens is refused on every channel once the node restarts',
  async (t) => {
    const node = await startNode(t, '', 'memory', { SVC_TOKEN_B: REVOKED });
    // The harness writes one token; the second is added before the node is served with it.
    const withBoth = readFileSync(node.configFile, 'utf8').replace(
      '{id: ops, token: "${SVC_TOKEN}"}',
      '{id: ops, token: "${SVC_TOKEN}"}, {id: ci, token: "${SVC_TOKEN_B}"}',
    );
    writeFileSync(node.configFile, withBoth);
    node.run.kill('SIGTERM');
    t.equal(await node.run.exited, 0);
    const both = await serveAgain(t, node, { SVC_TOKEN_B: REVOKED });

    const open = await rawWebSocket(node.port, '/ws/stream', [['Authorization', `Bearer ${REVOKED}`]]);
    t.teardown(() => open.destroy());
    t.equal(open.status, 101, 'the second token opens the socket');
    await next(open, (f) => f.kind === 'snapshot');
    open.sendText(JSON.stringify({ kind: 'query', id: 1, what: 'fleet' }));
    t.equal((await next(open, (f) => f.data?.id === 1)).kind, 'result', 'and asks a guarded question');

    writeFileSync(node.configFile, withBoth.replace(', {id: ci, token: "${SVC_TOKEN_B}"}', ''));
    both.kill('SIGTERM');
    t.same(await open.closed, { code: 1001, reason: 'node stopping' }, 'its socket is closed going away');
    t.equal(await both.exited, 0);
    await serveAgain(t, node, { SVC_TOKEN_B: REVOKED });

    for (const [channel, path, headers] of [
      ['Authorization', '/ws/stream', [['Authorization', `Bearer ${REVOKED}`]]],
      ['?token=', `/ws/stream?token=${REVOKED}`, []],
      ['subprotocol', '/ws/stream', [['Sec-WebSocket-Protocol', protocolOf(REVOKED)]]],
    ] as const) {
      const u = await rawWebSocket(node.port, path, headers);
      u.destroy();
      t.equal(u.status, 401, `${channel}: the revoked token opens nothing`);
      t.match(JSON.parse(u.body), { error: 'invalid_token' });
    }

    // Reads are open: an anonymous socket opens, and the revoked token in a query frame is a wrong bearer.
    const anonymous = await rawWebSocket(node.port, '/ws/stream');
    t.teardown(() => anonymous.destroy());
    await next(anonymous, (f) => f.kind === 'snapshot');
    anonymous.sendText(JSON.stringify({ kind: 'query', id: 2, what: 'fleet', token: REVOKED }));
    t.match((await next(anonymous, (f) => f.data?.id === 2)).data, {
      error: 'unauthorized',
      code: 'invalid_token',
      status: 401,
    });
    anonymous.sendText(JSON.stringify({ kind: 'query', id: 3, what: 'fleet', token: TOKEN }));
    t.equal((await next(anonymous, (f) => f.data?.id === 3)).kind, 'result', 'the token kept still answers');
  },
);
