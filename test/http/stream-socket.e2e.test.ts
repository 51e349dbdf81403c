/**
 * `/ws/stream` at the byte level: who may open it (Origin, repeated credentials), what it answers in the
 * handshake (subprotocols, RFC 6455 4.2.2), and how it closes (oversized frames, token guessing).
 */
import { request, type IncomingHttpHeaders } from 'node:http';
import t from 'tap';
import { startEventsNode, type Frame } from './fixtures/events-node.js';
import { headerValues, rawWebSocket, type RawUpgrade } from '../harness/ws-raw.js';
import { call, OPS, openAuth } from './fixtures/gateway-harness.js';
import type { AnsweredRequest } from '../../http/index.js';

const portOf = (ws: string): number => Number(new URL(ws).port);

/**
 * A handshake of exactly `headers` (besides Host), by a plain HTTP client: its status (101 when upgraded,
 * the socket then dropped), answer headers and body.
 */
async function handshake(
  port: number,
  headers: Record<string, string>,
  path = '/ws/stream',
): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers });
    req.on('error', reject);
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve({ status: 101, headers: res.headers, body: '' });
    });
    req.on('response', (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => void (body += chunk.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.end();
  });
}

const KEY = 'dGhlIHNhbXBsZSBub25jZQ==';
const websocket = { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13' };

/** Reads text messages until one `match` accepts. */
async function until(u: RawUpgrade, match: (f: Frame) => boolean): Promise<Frame> {
  for (;;) {
    const frame = JSON.parse(await u.nextText()) as Frame;
    if (match(frame)) return frame;
  }
}

t.test(
  'a browser page of another origin is refused the socket; same origin and no Origin open it',
  async (t) => {
    const { ws, h } = await startEventsNode(t);
    const port = portOf(ws);
    for (const origin of ['http://evil.example', `http://evil.example:${port}`, 'null', 'not a url']) {
      const u = await rawWebSocket(port, '/ws/stream', [['Origin', origin]]);
      u.destroy();
      t.equal(u.status, 403, `Origin ${origin} is refused`);
      t.match(JSON.parse(u.body), { error: 'cross_origin', detail: String, hint: String });
    }
    // The request line's own host, as a browser on the node's page sends it (default ports folded).
    for (const [origin, host] of [
      [`http://127.0.0.1:${port}`, `127.0.0.1:${port}`],
      [`http://LOCALHOST:${port}`, `localhost:${port}`],
      ['https://svc.example.com', 'svc.example.com:443'],
      ['http://svc.example.com', 'svc.example.com'],
    ] as const) {
      const u = await rawWebSocket(port, '/ws/stream', [['Origin', origin]], host);
      t.equal(u.status, 101, `Origin ${origin} with Host ${host} opens`);
      t.equal((await until(u, () => true)).kind, 'snapshot');
      u.destroy();
    }
    // Behind a proxy that rewrites Host but forwards the browser's.
    const proxied = [
      ['Origin', 'https://svc.example.com'],
      ['X-Forwarded-Host', 'svc.example.com, inner'],
    ] as const;
    const behind = await rawWebSocket(port, '/ws/stream', proxied, `127.0.0.1:${port}`);
    t.equal(behind.status, 101, 'an Origin matching X-Forwarded-Host opens');
    behind.destroy();
    const forged = [
      ['Origin', 'https://evil.example'],
      ['X-Forwarded-Host', 'svc.example.com'],
    ] as const;
    const other = await rawWebSocket(port, '/ws/stream', forged, `127.0.0.1:${port}`);
    t.equal(other.status, 403, 'an Origin matching neither Host nor X-Forwarded-Host is refused');
    other.destroy();
    const cli = await rawWebSocket(port, '/ws/stream');
    t.equal(cli.status, 101, 'a client that sends no Origin (CLI, scripts) opens');
    cli.destroy();
    const line = await h.waitForLog((l) => l.msg === 'request' && l.status === 403);
    t.match(line, { path: '/ws/stream', event: 'cross_origin' });
  },
);

t.test(
  'token guesses on the query channel log like the guard, without the candidate, and close the socket at 5',
  async (t) => {
    const questions = new Map([['config_audit', { guarded: true, answer: () => ['ok'] }]]);
    const { ws, h } = await startEventsNode(t, { questions });
    const u = await rawWebSocket(portOf(ws), '/ws/stream');
    t.teardown(() => u.destroy());
    await until(u, (f) => f.kind === 'snapshot');
    const ask = async (id: number, token: string): Promise<Frame> => {
      u.sendText(JSON.stringify({ kind: 'query', id, what: 'config_audit', token }));
      return until(u, (f) => (f.kind === 'result' || f.kind === 'error') && f.data.id === id);
    };
    const guesses = [1, 2, 3, 4, 5].map((i) => `guess-${i}-${'q'.repeat(12)}`);
    for (const [i, guess] of guesses.slice(0, 4).entries())
      t.match((await ask(i, guess)).data, { error: 'unauthorized' }, `guess ${i + 1} refused`);
    t.same((await ask(10, openAuth.tokens[0]!.token)).data.data, ['ok'], 'the socket is still open');
    t.match((await ask(11, guesses[4]!)).data, { error: 'unauthorized' });
    t.match(await u.closed, { code: 1008 }, 'the fifth refused token closes it: policy violation');
    const refused = h.logs.filter((l) => l.event === 'auth_refused');
    t.equal(refused.length, 5, 'every refusal is logged');
    t.ok(
      refused.every((l) => l.level === 40 && l.route === '/ws/stream' && l.operator === null),
      'at WARNING, naming the route',
    );
    for (const guess of guesses) t.notOk(h.rawLogs().includes(guess), 'never the candidate');
  },
);

t.test(
  'a message over 64 KiB is closed with 1009 (message too big); one of 64 KiB is answered',
  async (t) => {
    const { ws } = await startEventsNode(t);
    const ping = (bytes: number): string => JSON.stringify({ kind: 'ping' }).padEnd(bytes, ' ');
    const fits = await rawWebSocket(portOf(ws), '/ws/stream');
    t.teardown(() => fits.destroy());
    await until(fits, (f) => f.kind === 'snapshot');
    fits.sendText(ping(64 * 1024));
    t.equal((await until(fits, (f) => f.kind === 'pong')).data, null, 'exactly 64 KiB is answered');
    for (const bytes of [64 * 1024 + 1, 512 * 1024]) {
      const u = await rawWebSocket(portOf(ws), '/ws/stream');
      t.teardown(() => u.destroy());
      await until(u, (f) => f.kind === 'snapshot');
      u.sendText(ping(bytes));
      t.match(await u.closed, { code: 1009 }, `${bytes} bytes: a close frame saying why`);
    }
  },
);

t.test(
  'the subprotocol answered is svc.stream only when offered, never another one (RFC 6455)',
  async (t) => {
    const { ws } = await startEventsNode(t, { auth: { ...openAuth, allowAnonymousRead: false } });
    const token = openAuth.tokens[0]!.token;
    const tokenProtocol = `svc.token.${Buffer.from(token).toString('base64url')}`;
    const cases: Array<[string | null, string[]]> = [
      [`svc.stream, ${tokenProtocol}`, ['svc.stream']],
      [`foo, svc.stream, ${tokenProtocol}`, ['svc.stream']],
      [`${tokenProtocol}, foo`, []],
      [tokenProtocol, []],
      [null, []],
    ];
    for (const [offered, answered] of cases) {
      const headers: Array<[string, string]> = [['Authorization', `Bearer ${token}`]];
      if (offered !== null) headers.splice(0, 1, ['Sec-WebSocket-Protocol', offered]);
      const u = await rawWebSocket(portOf(ws), '/ws/stream', headers);
      u.destroy();
      t.equal(u.status, 101, `${offered ?? 'nothing'} offered: opened`);
      t.same(headerValues(u, 'sec-websocket-protocol'), answered, `answered ${answered.join() || 'none'}`);
    }
    const { ws: open } = await startEventsNode(t);
    for (const [offered, answered] of [
      ['foo, svc.stream', ['svc.stream']],
      ['foo', []],
      ['svc.streamer', []],
    ] as const) {
      const u = await rawWebSocket(portOf(open), '/ws/stream', [['Sec-WebSocket-Protocol', offered]]);
      u.destroy();
      t.same(headerValues(u, 'sec-websocket-protocol'), answered, `${offered}: no other echoed`);
    }
  },
);

t.test('an upgrade carrying Authorization twice is refused 401, even with reads open', async (t) => {
  const { ws } = await startEventsNode(t);
  const ops = `Bearer ${openAuth.tokens[0]!.token}`;
  for (const second of ['Bearer wrong', ops]) {
    const u = await rawWebSocket(portOf(ws), '/ws/stream', [
      ['Authorization', ops],
      ['Authorization', second],
    ]);
    u.destroy();
    t.equal(u.status, 401);
    t.match(JSON.parse(u.body), { error: 'invalid_token' });
  }
  const once = await rawWebSocket(portOf(ws), '/ws/stream', [['Authorization', ops]]);
  once.destroy();
  t.equal(once.status, 101, 'one is accepted');
});

t.test(
  'an upgrade carrying ?token= twice is refused 401, a wrong one beside a right one included',
  async (t) => {
    const { ws } = await startEventsNode(t);
    const ops = encodeURIComponent(openAuth.tokens[0]!.token);
    for (const query of [
      `token=${ops}&token=wrong`,
      `token=wrong&token=${ops}`,
      `token=${ops}&token=${ops}`,
    ]) {
      const u = await rawWebSocket(portOf(ws), `/ws/stream?${query}`);
      u.destroy();
      t.equal(u.status, 401, query.replaceAll(ops, 'ops'));
      t.match(JSON.parse(u.body), { error: 'invalid_token', detail: /more than one `token`/ });
    }
    const once = await rawWebSocket(portOf(ws), `/ws/stream?token=${ops}`);
    once.destroy();
    t.equal(once.status, 101, 'one is accepted');
  },
);

t.test(
  'every handshake is counted like a routed request and logged with its route and operator',
  async (t) => {
    const answered: AnsweredRequest[] = [];
    const { ws, h } = await startEventsNode(t, { observer: { answered: (r) => void answered.push(r) } });
    const port = portOf(ws);
    const handshakes: Array<[Array<[string, string]>, number, string | null]> = [
      [[['Authorization', `Bearer ${openAuth.tokens[0]!.token}`]], 101, 'ops'],
      [[], 101, null],
      [[['Authorization', 'Bearer wrong-candidate-0123']], 401, null],
      [[['Origin', 'http://evil.example']], 403, null],
    ];
    for (const [headers, status, operator] of handshakes) {
      const u = await rawWebSocket(port, '/ws/stream', headers);
      u.destroy();
      t.equal(u.status, status);
      // Logged in the callback that wrote the answer, so before the client read it.
      const line = h.logs.find((l) => l.msg === 'request' && l.status === status && l.operator === operator);
      t.match(line, { route: '/ws/stream', path: '/ws/stream', method: 'GET' }, `${status} logged`);
    }
    t.same(
      answered.map((r) => [r.method, r.route, r.status]),
      handshakes.map(([, status]) => ['GET', '/ws/stream', status]),
      'each told to the metrics observer',
    );
    t.notOk(h.rawLogs().includes('wrong-candidate-0123'), 'never the candidate');
  },
);

t.test(
  'a 426 says what the handshake lacked: an Upgrade, the websocket protocol, or a WebSocket key',
  async (t) => {
    const { ws } = await startEventsNode(t);
    const port = portOf(ws);
    const h2c = {
      connection: 'Upgrade, HTTP2-Settings',
      upgrade: 'h2c',
      'http2-settings': 'AAMAAABkAARAAAAAAAIAAAAA',
    };
    const cases: Array<[string, Record<string, string>, RegExp]> = [
      ['no Upgrade', {}, /carried no Upgrade header/],
      ['Upgrade: h2c', h2c, /asked to upgrade to "h2c"/],
      [
        'Upgrade: h2c with a WebSocket key',
        { ...h2c, 'sec-websocket-key': KEY, 'sec-websocket-version': '13' },
        /asked to upgrade to "h2c"/,
      ],
      ['no Sec-WebSocket-Key', websocket, /Sec-WebSocket-Key/],
      [
        'a Sec-WebSocket-Key of the wrong length',
        { ...websocket, 'sec-websocket-key': 'c2hvcnQ=' },
        /Sec-WebSocket-Key/,
      ],
      // 24 characters: uWS takes it as an upgrade, the upgrade handler finds it no base64 of 16 bytes.
      [
        'a Sec-WebSocket-Key of 24 characters, not base64',
        { ...websocket, 'sec-websocket-key': '!'.repeat(24) },
        /Sec-WebSocket-Key is not 16 bytes/,
      ],
    ];
    for (const [what, headers, detail] of cases) {
      const r = await handshake(port, headers);
      t.equal(r.status, 426, what);
      t.equal(r.headers['upgrade'], 'websocket', `${what}: names the protocol to use`);
      const body = JSON.parse(r.body) as { detail: string; hint: string };
      t.match(body.detail, detail, `${what}: says what was wrong`);
      if (what !== 'no Upgrade') t.notMatch(body.detail, /no Upgrade header/, `${what}: not "no Upgrade"`);
    }
    t.equal(
      (await handshake(port, { ...websocket, 'sec-websocket-key': KEY })).status,
      101,
      'a whole handshake opens',
    );
  },
);

t.test(
  'a WebSocket version other than 13 is answered 426 with Sec-WebSocket-Version: 13 (RFC 6455 4.2.2)',
  async (t) => {
    const answered: AnsweredRequest[] = [];
    const { ws } = await startEventsNode(t, { observer: { answered: (r) => void answered.push(r) } });
    const port = portOf(ws);
    for (const version of ['8', '14', null]) {
      const headers: Record<string, string> = { ...websocket, 'sec-websocket-key': KEY };
      if (version === null) delete headers['sec-websocket-version'];
      else headers['sec-websocket-version'] = version;
      const r = await handshake(port, headers);
      t.equal(r.status, 426, `version ${version ?? 'absent'}: not upgraded`);
      t.equal(r.headers['sec-websocket-version'], '13', 'names the version spoken');
      t.match(JSON.parse(r.body), { detail: /Sec-WebSocket-Version/ });
    }
    t.same(
      answered.map((r) => [r.route, r.status]),
      [
        ['/ws/stream', 426],
        ['/ws/stream', 426],
        ['/ws/stream', 426],
      ],
      'counted like every answer',
    );
    const { ws: closed } = await startEventsNode(t, { auth: { ...openAuth, allowAnonymousRead: false } });
    const guarded = await handshake(portOf(closed), {
      ...websocket,
      'sec-websocket-key': KEY,
      'sec-websocket-version': '8',
    });
    t.equal(guarded.status, 401, 'the guard answers first, as it does for a GET without Upgrade');
  },
);

t.test(
  'a wrong token beside a right one is refused 401 whichever channel carries it, even with reads open',
  async (t) => {
    const { ws, h } = await startEventsNode(t);
    const port = portOf(ws);
    const token = openAuth.tokens[0]!.token;
    const protocol = (value: string): [string, string] => [
      'Sec-WebSocket-Protocol',
      `svc.stream, svc.token.${Buffer.from(value).toString('base64url')}`,
    ];
    const cases: Array<[string, string, Array<[string, string]>]> = [
      ['Authorization right, ?token= wrong', '?token=wrong', [['Authorization', OPS]]],
      ['Authorization wrong, ?token= right', `?token=${token}`, [['Authorization', 'Bearer wrong']]],
      ['subprotocol right, ?token= wrong', '?token=wrong', [protocol(token)]],
      ['Authorization right, subprotocol wrong', '', [['Authorization', OPS], protocol('wrong')]],
    ];
    for (const [what, query, headers] of cases) {
      const u = await rawWebSocket(port, `/ws/stream${query}`, headers);
      u.destroy();
      t.equal(u.status, 401, what);
      t.match(JSON.parse(u.body), { error: 'invalid_token' }, what);
      t.same(headerValues(u, 'www-authenticate'), ['Bearer realm="svc", error="invalid_token"'], what);
    }
    const both = await rawWebSocket(port, `/ws/stream?token=${token}`, [['Authorization', OPS]]);
    both.destroy();
    t.equal(both.status, 101, 'the same right token on both channels opens');
    const plain = await call(`${h.base}/ws/stream?token=wrong`, { headers: { authorization: OPS } });
    t.equal(plain.status, 401, 'without Upgrade too: 401, not 426');
  },
);

t.test('a bad frame echoes its id only when the id is one a query may carry', async (t) => {
  const { ws } = await startEventsNode(t);
  const u = await rawWebSocket(portOf(ws), '/ws/stream');
  t.teardown(() => u.destroy());
  await until(u, (f) => f.kind === 'snapshot');
  const bad = async (id: unknown): Promise<Frame['data']> => {
    u.sendText(JSON.stringify({ kind: 'query', id, what: '' }));
    return (await until(u, (f) => f.kind === 'error')).data;
  };
  const long = 'x'.repeat(200);
  const refused = await bad(long);
  t.match(refused, { id: null, error: 'bad_frame' }, 'an id over 128 characters is not echoed');
  t.notOk(JSON.stringify(refused).includes('x'.repeat(129)), 'nothing of it comes back');
  t.match(await bad('x'.repeat(128)), { id: 'x'.repeat(128), error: 'bad_frame' }, '128 characters: echoed');
  t.match(await bad(7), { id: 7, error: 'bad_frame' }, 'a number: echoed');
  t.match(await bad({ nested: true }), { id: null, error: 'bad_frame' }, 'an object: not echoed');
});
