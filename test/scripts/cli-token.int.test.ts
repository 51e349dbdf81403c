/**
 * SVC_TOKEN as a client command sends it. The node compares a bearer token trimmed, so the line break a token
 * file leaves (`SVC_TOKEN=$(cat token.txt)` keeps a CRLF file's `\r`) is no part of it: the trimmed token
 * is sent. One a header cannot carry (a line break or control character inside it, a character beyond
 * Latin-1) is refused before anything is sent, naming SVC_TOKEN and never its value — not reported as an
 * unreachable node, and never written into the request (a line break would start another header).
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { svc } from '../harness/svc-main.js';

/** A node that answers every request 200 `{}` and records each request's authorization header, and every connection. */
async function stubNode(t: Test) {
  const seen: Array<string | undefined> = [];
  let connections = 0;
  const node = createServer((req, res) => {
    seen.push(req.headers.authorization);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"revisions":[],"total":0,"limit":50,"offset":0}');
  });
  node.on('connection', () => (connections += 1));
  node.listen(0, '127.0.0.1');
  await once(node, 'listening');
  t.teardown(() => node.close());
  return {
    url: `http://127.0.0.1:${(node.address() as AddressInfo).port}`,
    seen,
    connections: () => connections,
  };
}

t.test('a token file’s trailing line break is no part of SVC_TOKEN: the trimmed token is sent', async (t) => {
  const node = await stubNode(t);
  for (const token of ['canary-token-1\n', 'canary-token-1\r\n', '  canary-token-1\r']) {
    const run = await svc(['config', 'revisions', '--url', node.url], { SVC_TOKEN: token });
    t.equal(run.code, 0, `${JSON.stringify(token)}: ${run.err}`);
    t.same(node.seen.splice(0), ['Bearer canary-token-1'], `${JSON.stringify(token)}: sent trimmed`);
  }
});

t.test('a SVC_TOKEN no header can carry is refused by name before anything is sent', async (t) => {
  const node = await stubNode(t);
  const tokens = ['canary\nX-Injected: 1', 'canary\rtoken', 'canary\u0000token', 'canary\u20actoken'];
  const invocations = [
    ['config', 'revisions'],
    ['work', 'list'],
    ['agents', 'pause', 'theo'],
    ['events', 'tail'],
  ];
  for (const token of tokens) {
    for (const args of invocations) {
      const what = `${args.join(' ')} with ${JSON.stringify(token)}`;
      const run = await svc([...args, '--url', node.url], { SVC_TOKEN: token });
      t.equal(run.code, 2, `${what}: a usage error`);
      t.match(run.err, /SVC_TOKEN holds a character no HTTP header can carry/, `${what}: names SVC_TOKEN`);
      t.notMatch(run.err, /cannot reach/, `${what}: not said to be unreachable`);
      t.notMatch(run.err, /canary/, `${what}: the token is not echoed`);
      t.ok(run.err.trimEnd().split('\n').length <= 2, `${what}: one or two lines`);
    }
  }
  t.same(node.seen, [], 'no request reached the node');
  t.equal(node.connections(), 0, 'no connection was opened');
});

t.test('a credential typed as --flag=VALUE is never echoed, whatever the flag lands on', async (t) => {
  const invocations = [
    ['--token=canary-cred'],
    ['-t=canary-cred'],
    ['help', '--token=canary-cred'],
    ['--version', '--token=canary-cred'],
    ['keygen', '--token=canary-cred'],
    ['completion', '--token=canary-cred'],
    ['work', 'list', '--token=canary-cred'],
    ['secrets', 'put', 'FOO', '--value=canary-cred'],
    ['serve', '--token=canary-cred'],
  ];
  for (const args of invocations) {
    const run = await svc([...args, '--url', 'http://127.0.0.1:1']);
    t.equal(run.code, 2, `${args.join(' ')}: a usage error`);
    t.notMatch(run.err, /canary/, `${args.join(' ')}: the value is not echoed (${run.err.split('\n')[0]})`);
    t.match(run.err, /--token|-t\b|--value|completion needs a shell/, `${args.join(' ')}: names the flag`);
  }
});
