/**
 * An answer has a size bound (ops/providers.md "Timeouts and errors"): a server that streams without end, or
 * one endless line, fails the call as malformed once the bound is passed, well before the deadline, rather
 * than holding the node's memory until the whole-call timeout.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { LlmMalformedStreamError, maxAnswerBytes } from '../../../actors/index.js';
import type { LlmServer } from '../../fixtures/llm/llm-server.js';
import { ask, callClient, clientFor, rejection } from './helpers.js';

/** A server answering 200 with `contentType`, then writing `chunk` until the client goes away. */
async function endless(t: Test, contentType: string, chunk: string): Promise<LlmServer> {
  const piece = Buffer.from(chunk);
  const pump = (res: ServerResponse): void => {
    while (!res.destroyed && res.write(piece));
    if (!res.destroyed) res.once('drain', () => pump(res));
  };
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': contentType });
    pump(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  t.teardown(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return {
    url,
    baseUrl: `${url}/v1`,
    requests: [],
    waitForRequests: () => Promise.resolve(),
    release: () => {},
    close: () => Promise.resolve(),
  };
}

const mib = (n: number): string => 'x'.repeat(n * 1024 * 1024);
// Far above the bound's time to arrive on a loopback: the call must end on the bound, not the deadline.
const deadlineMs = 120_000;

t.test('an answer larger than the bound fails as malformed: an endless stream of chunks', async (t) => {
  const frame = `data: ${JSON.stringify({ model: 'm', choices: [{ delta: { content: mib(1) } }] })}\n\n`;
  const server = await endless(t, 'text/event-stream', frame);
  const started = Date.now();
  const error = await rejection(callClient(clientFor(server, 'openai', deadlineMs), ask('q')));
  t.type(error, LlmMalformedStreamError);
  t.match(error.message, new RegExp(`larger than ${maxAnswerBytes / 1024 / 1024} MiB`));
  t.ok(Date.now() - started < deadlineMs / 2, 'ended on the bound');
});

t.test('an answer larger than the bound fails as malformed: one endless SSE line', async (t) => {
  const server = await endless(t, 'text/event-stream', mib(1));
  const error = await rejection(callClient(clientFor(server, 'anthropic', deadlineMs), ask('q')));
  t.type(error, LlmMalformedStreamError);
});

t.test('an answer larger than the bound fails as malformed: an endless JSON completion', async (t) => {
  const server = await endless(t, 'application/json', mib(1));
  const error = await rejection(callClient(clientFor(server, 'openai-compatible', deadlineMs), ask('q')));
  t.type(error, LlmMalformedStreamError);
});
