import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { nodePost } from '../../../actors/seat/providers/http-post.js';

/**
 * A server answering every POST with a stream of `events` then `[DONE]` and a trailing comment (with `end`
 * false: the stream stays open after `[DONE]`); counts connections.
 */
async function sseServer(
  t: Test,
  events: number,
  end = true,
): Promise<{ url: string; connections: () => number }> {
  let connections = 0;
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      let stream = '';
      for (let i = 0; i < events; i++) stream += `data: {"n":${i}}\n\n`;
      // Bytes after [DONE]: a reader that stops at it leaves these unread.
      stream += 'data: [DONE]\n\n: bye\n\n';
      if (end) res.end(stream);
      else res.write(stream);
    });
  });
  server.on('connection', () => (connections += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  t.teardown(() => server.closeAllConnections());
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/v1/chat`, connections: () => connections };
}

const readUntilDone = async (body: AsyncIterable<Uint8Array>): Promise<string> => {
  let text = '';
  for await (const chunk of body) {
    text += Buffer.from(chunk).toString('utf8');
    if (text.includes('[DONE]')) break;
  }
  return text;
};

t.test('a stream read up to its [DONE] leaves the connection to serve the next call', async (t) => {
  const server = await sseServer(t, 3);
  for (let call = 0; call < 3; call++) {
    const answer = await nodePost(server.url, {
      headers: { 'content-type': 'application/json' },
      body: '{"q":1}',
      signal: new AbortController().signal,
    });
    t.equal(answer.status, 200);
    t.equal(answer.header('Content-Type'), 'text/event-stream');
    t.match(await readUntilDone(answer.body), /data: \{"n":2\}\n\ndata: \[DONE\]/);
    // One turn of the event loop: the rest of the answer (already here) is drained meanwhile.
    await new Promise((resolve) => setImmediate(resolve));
  }
  t.equal(server.connections(), 1, 'three calls, one connection');
});

t.test('an abort while the body streams ends the reading with an error', async (t) => {
  const server = await sseServer(t, 1, false);
  const controller = new AbortController();
  const answer = await nodePost(server.url, { headers: {}, body: '{}', signal: controller.signal });
  controller.abort();
  await t.rejects(async () => {
    for await (const _ of answer.body) void _;
  });
});

t.test('a scheme that is not HTTP is refused before anything is sent', async (t) => {
  await t.rejects(
    nodePost('ftp://127.0.0.1/x', { headers: {}, body: '', signal: new AbortController().signal }),
    /ftp: is not an HTTP scheme/,
  );
});
