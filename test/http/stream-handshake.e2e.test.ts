/**
 * `/ws/stream` handshake refusals the byte-level socket tests leave out: credentials that name two
 * operators at once (spec "Authentication" 2 and 4) and an upgrade without `Connection: Upgrade`
 * (RFC 6455 4.2.1, spec error table: 426).
 */
import t from 'tap';
import { startEventsNode } from './fixtures/events-node.js';
import { headerValues, rawWebSocket } from '../harness/ws-raw.js';
import { openConnection } from '../harness/raw-http.js';
import { call, CI, OPS, openAuth } from './fixtures/gateway-harness.js';

const portOf = (ws: string): number => Number(new URL(ws).port);
const KEY = 'dGhlIHNhbXBsZSBub25jZQ==';
const OPS_TOKEN = openAuth.tokens[0]!.token;
const CI_TOKEN = openAuth.tokens[1]!.token;
const protocol = (value: string): [string, string] => [
  'Sec-WebSocket-Protocol',
  `svc.stream, svc.token.${Buffer.from(value).toString('base64url')}`,
];

t.test(
  'right tokens of two different operators are refused 401: the socket would act as one of them at random',
  async (t) => {
    const { ws, h } = await startEventsNode(t);
    const port = portOf(ws);
    const cases: Array<[string, string, Array<[string, string]>]> = [
      ['Authorization ops, ?token= ci', `?token=${CI_TOKEN}`, [['Authorization', OPS]]],
      ['Authorization ci, ?token= ops', `?token=${OPS_TOKEN}`, [['Authorization', CI]]],
      ['Authorization ops, subprotocol ci', '', [['Authorization', OPS], protocol(CI_TOKEN)]],
      ['subprotocol ops, ?token= ci', `?token=${CI_TOKEN}`, [protocol(OPS_TOKEN)]],
    ];
    for (const [what, query, headers] of cases) {
      const u = await rawWebSocket(port, `/ws/stream${query}`, headers);
      u.destroy();
      t.equal(u.status, 401, what);
      t.match(JSON.parse(u.body), { error: 'invalid_token', detail: /more than one operator/ }, what);
      // RFC 6750 3.1: more than one method of including a token is `invalid_request`.
      t.same(headerValues(u, 'www-authenticate'), ['Bearer realm="svc", error="invalid_request"'], what);
    }
    const plain = await call(`${h.base}/ws/stream?token=${CI_TOKEN}`, { headers: { authorization: OPS } });
    t.equal(plain.status, 401, 'without Upgrade too: 401, not 426');
    t.match(plain.json, { error: 'invalid_token', detail: /more than one operator/ });
    const same = await rawWebSocket(port, `/ws/stream?token=${OPS_TOKEN}`, [
      ['Authorization', OPS],
      protocol(OPS_TOKEN),
    ]);
    same.destroy();
    t.equal(same.status, 101, 'the same operator on every channel opens');
    t.notOk(h.rawLogs().includes(CI_TOKEN), 'never a token in the logs');
  },
);

t.test(
  'an upgrade without Connection: Upgrade is answered 426 naming the missing token (RFC 6455 4.2.1)',
  async (t) => {
    const { ws } = await startEventsNode(t);
    const port = portOf(ws);
    const base = { upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': KEY };
    const cases: Array<[string, Record<string, string>, number, RegExp | null]> = [
      ['no Connection header', base, 426, /carried no Connection header/],
      ['Connection: keep-alive', { ...base, connection: 'keep-alive' }, 426, /Connection "keep-alive"/],
      ['Connection: close', { ...base, connection: 'close' }, 426, /Connection "close"/],
      ['Connection: upgrade', { ...base, connection: 'upgrade' }, 101, null],
      ['Connection: keep-alive, Upgrade', { ...base, connection: 'keep-alive, Upgrade' }, 101, null],
      ['Connection: KEEP-ALIVE,UPGRADE', { ...base, connection: 'KEEP-ALIVE,UPGRADE' }, 101, null],
    ];
    for (const [what, headers, status, detail] of cases) {
      const c = await openConnection(port);
      const r = await c.request('GET', '/ws/stream', { headers });
      c.close();
      t.equal(r.status, status, what);
      if (detail === null) continue;
      t.equal(r.headers['upgrade'], 'websocket', `${what}: names the protocol to use`);
      t.match(JSON.parse(r.body), { detail }, `${what}: says what was missing`);
    }
    const twice = await openConnection(port);
    twice.write(
      `GET /ws/stream HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: keep-alive\r\nConnection: Upgrade\r\n` +
        `Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: ${KEY}\r\n\r\n`,
    );
    t.equal((await twice.response()).status, 101, 'Connection sent twice, Upgrade in the second: opens');
    twice.close();
    // A GET uWS does not take as an upgrade (no key) reaches the route table, which asks the same.
    const c = await openConnection(port);
    const r = await c.request('GET', '/ws/stream', {
      headers: { upgrade: 'websocket', 'sec-websocket-version': '13', connection: 'keep-alive' },
    });
    c.close();
    t.equal(r.status, 426);
    t.match(JSON.parse(r.body), { detail: /Connection "keep-alive"|Sec-WebSocket-Key/ });
    const { ws: closed } = await startEventsNode(t, { auth: { ...openAuth, allowAnonymousRead: false } });
    const g = await openConnection(portOf(closed));
    const guarded = await g.request('GET', '/ws/stream', { headers: base });
    g.close();
    t.equal(guarded.status, 401, 'the guard answers first when reads need a token');
  },
);

t.test(
  'a subprotocol token offered twice is refused 401 whatever the values, as `?token=` given twice is, ' +
    'in one Sec-WebSocket-Protocol list or across two of the header',
  async (t) => {
    const { ws, h } = await startEventsNode(t);
    const port = portOf(ws);
    const token = (value: string): string => `svc.token.${Buffer.from(value).toString('base64url')}`;
    const cases: Array<[string, Array<[string, string]>]> = [
      [
        'the same right token twice',
        [['Sec-WebSocket-Protocol', `svc.stream, ${token(OPS_TOKEN)}, ${token(OPS_TOKEN)}`]],
      ],
      [
        'right, then wrong',
        [['Sec-WebSocket-Protocol', `svc.stream, ${token(OPS_TOKEN)}, ${token('wrong')}`]],
      ],
      [
        'right, then another operator',
        [['Sec-WebSocket-Protocol', `svc.stream, ${token(OPS_TOKEN)}, ${token(CI_TOKEN)}`]],
      ],
      [
        'right, then wrong in a second header',
        [
          ['Sec-WebSocket-Protocol', `svc.stream, ${token(OPS_TOKEN)}`],
          ['Sec-WebSocket-Protocol', token('wrong')],
        ],
      ],
    ];
    for (const [what, headers] of cases) {
      const u = await rawWebSocket(port, '/ws/stream', headers);
      u.destroy();
      t.equal(u.status, 401, what);
      t.match(JSON.parse(u.body), { error: 'invalid_token', detail: /more than one `svc\.token\.`/ }, what);
      t.same(headerValues(u, 'www-authenticate'), ['Bearer realm="svc", error="invalid_request"'], what);
    }
    const plain = await call(`${h.base}/ws/stream`, {
      headers: { 'sec-websocket-protocol': `svc.stream, ${token(OPS_TOKEN)}, ${token('wrong')}` },
    });
    t.equal(plain.status, 401, 'without Upgrade too: 401, not 426');
    t.notOk(h.rawLogs().includes(CI_TOKEN), 'never a token in the logs');
  },
);

t.test(
  'Sec-WebSocket-Protocol sent as two headers is read as one list (RFC 6455 11.3.4): ' +
    'the token in the second opens the socket and svc.stream in the first is answered',
  async (t) => {
    const { ws } = await startEventsNode(t, { auth: { ...openAuth, allowAnonymousRead: false } });
    const u = await rawWebSocket(portOf(ws), '/ws/stream', [
      ['Sec-WebSocket-Protocol', 'svc.stream'],
      ['Sec-WebSocket-Protocol', `svc.token.${Buffer.from(OPS_TOKEN).toString('base64url')}`],
    ]);
    t.teardown(() => u.destroy());
    t.equal(u.status, 101);
    t.same(headerValues(u, 'sec-websocket-protocol'), ['svc.stream']);
  },
);

t.test(
  'without Upgrade, a subprotocol token is read as on the upgrade (spec error table: 401 for a refused ' +
    'credential, 426 for an accepted one)',
  async (t) => {
    const token = (value: string): string =>
      `svc.stream, svc.token.${Buffer.from(value).toString('base64url')}`;
    const { h: closed } = await startEventsNode(t, { auth: { ...openAuth, allowAnonymousRead: false } });
    const right = await call(`${closed.base}/ws/stream`, {
      headers: { 'sec-websocket-protocol': token(OPS_TOKEN) },
    });
    t.equal(right.status, 426, 'reads need a token: the subprotocol token is accepted, so 426');
    const { h: open } = await startEventsNode(t);
    const wrong = await call(`${open.base}/ws/stream`, {
      headers: { 'sec-websocket-protocol': token('wrong') },
    });
    t.equal(wrong.status, 401, 'reads open: a wrong subprotocol token is refused, not 426');
    t.match(wrong.json, { error: 'invalid_token' });
    const beside = await call(`${open.base}/ws/stream?token=${OPS_TOKEN}`, {
      headers: { 'sec-websocket-protocol': token('wrong') },
    });
    t.equal(beside.status, 401, 'a wrong subprotocol token beside a right ?token= is refused');
  },
);
