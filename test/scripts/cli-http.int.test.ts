import { once } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { requestNode, unusableNode } from '../../scripts/cli-http.js';

/** A real listener answering by path; records what each request carried. */
async function node(t: Test) {
  const seen: Array<{ method: string; url: string; headers: IncomingMessage['headers']; body: string }> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      });
      if (req.url === '/empty') return void res.writeHead(204).end();
      if (req.url === '/refused')
        return void res
          .writeHead(401, { 'content-type': 'application/json' })
          .end('{"error":"invalid_token"}');
      res.writeHead(200, { 'content-type': 'application/json', 'x-many': 'a' });
      res.write('{"part":');
      res.end('1}');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const sink = () => {
  let text = '';
  return {
    write: (s: string) => (text += s),
    get text() {
      return text;
    },
  };
};

t.test(
  'a request carries the token, the CLI user agent and the body, and its answer reads as a Response',
  async (t) => {
    const { url, seen } = await node(t);
    const err = sink();
    const res = await requestNode('config', { url, token: 'tok', err }, 'PUT', '/x', 'hello', {
      'content-type': 'text/plain',
    });
    t.equal(res?.status, 200);
    t.equal(res?.headers.get('x-many'), 'a');
    t.same(await res?.json(), { part: 1 });
    t.match(seen[0], {
      method: 'PUT',
      url: '/x',
      body: 'hello',
      headers: { authorization: 'Bearer tok', 'content-type': 'text/plain', 'user-agent': /^svc-cli\// },
    });
    t.equal(err.text, '');
  },
);

t.test('a 204 answers with no body; a 401 adds the token hint', async (t) => {
  const { url } = await node(t);
  const err = sink();
  const empty = await requestNode('config', { url, token: undefined, err }, 'DELETE', '/empty');
  t.equal(empty?.status, 204);
  t.equal(await empty?.text(), '');
  const refused = await requestNode('secrets', { url, token: undefined, err }, 'GET', '/refused');
  t.equal(refused?.status, 401);
  t.match(err.text, /svc secrets: the node needs an operator token: set SVC_TOKEN/);
});

t.test('an unreachable node is one line naming the address and the cause', async (t) => {
  const err = sink();
  t.equal(
    await requestNode('events', { url: 'http://127.0.0.1:1', token: undefined, err }, 'GET', '/events'),
    null,
  );
  t.match(
    err.text,
    /^svc events: cannot reach http:\/\/127\.0\.0\.1:1 \(connect ECONNREFUSED 127\.0\.0\.1:1\): is the node running, and is this its api\.host:api\.port\? Set --url or \$SVC_URL to it\n$/,
  );
  const bad = sink();
  t.equal(
    await requestNode('events', { url: 'nonsense', token: undefined, err: bad }, 'GET', '/events'),
    null,
  );
  t.equal(bad.text, unusableNode('events'), 'an address that is not a URL is not quoted');
});

t.test('an unreachable node is named by its origin, whatever its password holds', async (t) => {
  // @ and a space parse (the authority ends at the last @); # ? / end it early, so no request is sent.
  const cases: Array<[string, boolean]> = [
    ['Pw@Zq', true],
    ['Pw Zq', true],
    ['Pw#Zq', false],
    ['Pw?Zq', false],
    ['Pw/Zq', false],
    ['Pw@b#c?d e@Zq', false],
  ];
  for (const [password, usable] of cases) {
    const err = sink();
    const url = `http://admin:${password}@127.0.0.1:1`;
    t.equal(await requestNode('events', { url, token: undefined, err }, 'GET', '/events'), null);
    t.notMatch(err.text, /admin|Pw|Zq|\bb\b/, `${JSON.stringify(password)}: no userinfo`);
    if (usable) t.match(err.text, /^svc events: cannot reach http:\/\/127\.0\.0\.1:1 \(connect ECONNREFUSED/);
    else t.equal(err.text, unusableNode('events'), `${JSON.stringify(password)}: not sent`);
  }
});
