/**
 * A remote (streamable HTTP) tool server that answers HTTP errors or redirects: the failure in
 * `/mcp-servers` and in the call's answer says what the server answered, on one line, bounded, with
 * no header value in it — never just "the tool server closed the connection".
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { startRemote } from '../../fixtures/mcp/servers.js';
import { startManager } from './harness.js';

const secret = 'remote-header-secret-4242';
const slow = { backoffBaseMs: 60_000, backoffCapMs: 60_000 };

/** A real listener answering every request with `answer`; `seen` counts the requests it got. */
async function hostile(
  t: Test,
  answer: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ url: string; seen: () => number }> {
  let seen = 0;
  const server = createServer((req, res) => {
    seen += 1;
    answer(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, seen: () => seen };
}

const entry = (url: string) => ({ name: 'wiki', url, headers: { 'X-Api-Key': secret } });

t.test(
  'a remote server answering HTTP 401 at start reads as that answer in last_failure: one line, bounded, no header value',
  async (t) => {
    const remote = await hostile(t, (req, res) => {
      const key = String(req.headers['x-api-key']);
      res.writeHead(401, { 'content-type': 'text/plain' });
      res.end(`invalid key ${key} ${'x'.repeat(20_000)}\nsecond line\n`);
    });
    const { manager, logs } = startManager(t, slow);
    await manager.apply({ name: 'Acme', mcp_servers: [entry(remote.url)] });
    const status = manager.status()[0]!;
    t.match(status, { state: 'backoff', failed: true });
    const error = status.last_failure!.error;
    t.match(error, /^the tool server answered HTTP 401: invalid key \[redacted\] x+/);
    t.notMatch(error, '\n', 'one line');
    t.ok(error.length <= 600, `bounded (${error.length} characters)`);
    t.notMatch(error, 'second line');
    t.equal(status.first_failure!.error, error);
    const failure = await logs.waitFor((l) => l.msg === 'tool server failed; restarting after backoff');
    t.equal(failure['error'], error, 'the log says the same');
    t.notMatch(logs.raw(), secret);
    t.notMatch(JSON.stringify(manager.status()), secret);
  },
);

t.test(
  'a remote server answering HTTP 500 to a call: the call and the failure name that answer',
  async (t) => {
    const real = await startRemote(t, { name: 'wiki' });
    let broken = false;
    const remote = await hostile(t, (req, res) => {
      if (broken) {
        res.writeHead(500, { 'content-type': 'text/html' });
        res.end(`<html>\n<body>${'y'.repeat(50_000)}</body>\n</html>`);
        return;
      }
      // Until it breaks, a proxy to a real MCP server.
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        void fetch(real.url, {
          method: req.method ?? 'POST',
          headers: Object.fromEntries(
            Object.entries(req.headers).filter(
              (e): e is [string, string] => typeof e[1] === 'string' && e[0] !== 'host',
            ),
          ),
          ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
        }).then(async (answer) => {
          res.writeHead(answer.status, Object.fromEntries(answer.headers));
          res.end(Buffer.from(await answer.arrayBuffer()));
        });
      });
    });
    const { manager, logs } = startManager(t, slow);
    await manager.apply({ name: 'Acme', mcp_servers: [entry(remote.url)], roles: [{ name: 'Ada' }] });
    t.match(manager.status()[0], { state: 'started' });
    broken = true;
    const answer = await manager.callTool('ada', 'echo', { text: 'hi' });
    t.equal(answer.is_error, true);
    const text = answer.content[0]!.text;
    t.match(text, /^tool echo on wiki failed: the tool server answered HTTP 500: <html>$/);
    const status = manager.status()[0]!;
    t.match(status, {
      state: 'backoff',
      last_failure: { error: 'the tool server answered HTTP 500: <html>' },
    });
    t.notMatch(logs.raw(), secret);
  },
);

t.test(
  'a remote server redirecting to another origin: not followed, the headers never reach it, and the failure says so',
  async (t) => {
    const elsewhere = await hostile(t, (_req, res) => res.writeHead(404).end());
    const remote = await hostile(t, (_req, res) => res.writeHead(307, { location: elsewhere.url }).end());
    const { manager, logs } = startManager(t, slow);
    await manager.apply({ name: 'Acme', mcp_servers: [entry(remote.url)] });
    const error = manager.status()[0]!.last_failure!.error;
    t.equal(
      error,
      `the tool server answered HTTP 307: Redirect to ${elsewhere.url} not followed (another origin; set url to the address it names)`,
    );
    t.equal(elsewhere.seen(), 0, 'nothing, and so no header, was sent to the other origin');
    t.notMatch(logs.raw(), secret);
  },
);

t.test('a remote server that cannot be reached says why in last_failure', async (t) => {
  // A port just freed: a connection to it is refused.
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const { manager } = startManager(t, slow);
  await manager.apply({ name: 'Acme', mcp_servers: [entry(`http://127.0.0.1:${port}/mcp`)] });
  t.equal(
    manager.status()[0]!.last_failure!.error,
    `the tool server could not be reached: connect ECONNREFUSED 127.0.0.1:${port}`,
  );
});
