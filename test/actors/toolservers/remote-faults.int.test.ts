/**
 * A remote (streamable HTTP) tool server that answers HTTP errors or redirects: the failure in
 * `/mcp-servers` and in the call's answer says what the server answered, on one line, bounded, with
 * no header value in it — never just "the tool server closed the connection". One answering without end is
 * cut at the 10 MiB limit of a message, the call answering a tool error.
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

/** Answers with `head` and then `chunk` written without end (paced by drain) until the client cuts; resolves with the bytes written. */
function flood(
  res: ServerResponse,
  head: Record<string, string>,
  start: string,
  chunk: Buffer,
): Promise<number> {
  res.writeHead(200, head);
  let written = 0;
  return new Promise<number>((resolve) => {
    res.on('close', () => resolve(written));
    res.write(start);
    const pump = (): void => {
      while (!res.destroyed) {
        written += chunk.length;
        if (!res.write(chunk)) {
          res.once('drain', pump);
          return;
        }
      }
    };
    pump();
  });
}

/** A proxy to a real MCP server whose `tools/call` answers are, while `mode` says so, endless. */
async function flooding(t: Test, mode: () => 'sse' | 'json' | null) {
  const real = await startRemote(t, { name: 'wiki' });
  const floods: Promise<number>[] = [];
  /** Requests resuming a stream (a GET naming the last event it read). */
  let resumed = 0;
  const remote = await hostile(t, (req, res) => {
    if (req.headers['last-event-id'] !== undefined) resumed += 1;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const message =
        chunks.length > 0 ? (JSON.parse(body.toString()) as { id?: number; method?: string }) : {};
      const kind = mode();
      if (kind !== null && message.method === 'tools/call') {
        const open = `{"jsonrpc":"2.0","id":${message.id},"result":{"content":[{"type":"text","text":"`;
        const x = Buffer.alloc(64 * 1024, 'x');
        floods.push(
          kind === 'sse'
            ? // A priming event first: the stream is resumable, so a cut alone would make the client resume it.
              flood(res, { 'content-type': 'text/event-stream' }, `id: p1\ndata: \n\ndata: ${open}`, x)
            : flood(res, { 'content-type': 'application/json' }, open, x),
        );
        return;
      }
      void fetch(real.url, {
        method: req.method ?? 'POST',
        headers: Object.fromEntries(
          Object.entries(req.headers).filter(
            (e): e is [string, string] => typeof e[1] === 'string' && e[0] !== 'host',
          ),
        ),
        ...(chunks.length > 0 ? { body } : {}),
      }).then(async (answer) => {
        res.writeHead(answer.status, Object.fromEntries(answer.headers));
        res.end(Buffer.from(await answer.arrayBuffer()));
      });
    });
  });
  return { url: remote.url, floods, resumed: () => resumed };
}

for (const kind of ['sse', 'json'] as const) {
  t.test(
    `a remote tool answer over the 10 MiB limit (${kind === 'sse' ? 'an event stream' : 'a JSON body'}) is cut there: the call answers a tool error naming the limit, the server stays up`,
    async (t) => {
      let on = false;
      const remote = await flooding(t, () => (on ? kind : null));
      const { manager, logs } = startManager(t, { ...slow, callTimeoutMs: 60_000 });
      await manager.apply({ name: 'Acme', mcp_servers: [entry(remote.url)], roles: [{ name: 'Ada' }] });
      t.match(manager.status()[0], { state: 'started' });
      on = true;
      const answer = await manager.callTool('ada', 'echo', { text: 'hi' });
      t.equal(answer.is_error, true);
      t.match(
        answer.content[0]!.text,
        /^tool echo on wiki failed: the tool server sent an answer over the 10 MiB limit of a tool server's message/,
      );
      t.equal(remote.floods.length, 1);
      const written = await remote.floods[0]!;
      // The client stopped reading at the limit and closed the request: what was written past it is what
      // the socket buffers held, not the endless rest.
      t.ok(written < 3 * 10 * 1024 * 1024, `the request was cut near the limit (${written} bytes written)`);
      const warned = await logs.waitFor((l) => l.msg === 'tool server answer over the limit; cut');
      t.match(warned, { limit_bytes: 10 * 1024 * 1024 });
      on = false;
      t.match(
        manager.status()[0],
        { state: 'started', restarts: 0 },
        'an oversized answer is no failure of the server',
      );
      const next = await manager.callTool('ada', 'echo', { text: 'again' });
      t.equal(next.is_error, false);
      t.equal(remote.resumed(), 0, 'the cut stream was not resumed');
    },
  );
}
