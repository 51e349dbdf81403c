/**
 * Forwarding a run's exports upstream holds only so much at once: while the collector is slow, exports
 * past the in-flight limit are dropped (and logged) instead of piling up in the node's memory, and
 * forwarding resumes once the collector answers.
 */
import { createServer, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import t from 'tap';
import { otlpForwarder } from '../../../actors/index.js';
import { captureLogs } from '../toolservers/harness.js';

t.test('exports past the in-flight limit are dropped while the collector is slow', async (t) => {
  const held: ServerResponse[] = [];
  let arrived = 0;
  const waiters: Array<() => void> = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      arrived += 1;
      held.push(res);
      for (const wake of waiters.splice(0)) wake();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const logs = captureLogs();
  const forwarder = otlpForwarder({
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` },
    logger: logs.logger,
    maxInFlightBytes: 1024 * 1024,
  });
  const body = Buffer.alloc(400 * 1024, 0x20);
  const sends = Array.from({ length: 5 }, () => forwarder.forward('traces', 'application/json', body));
  while (arrived < 2) await new Promise<void>((resolve) => waiters.push(resolve));
  await logs.waitFor((l) => l.msg === 'OTLP forward dropped: the collector is behind');
  t.equal(arrived, 2, 'two exports in flight (800 KiB of 1 MiB); the other three dropped');

  for (const res of held.splice(0)) res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  await Promise.all(sends);
  t.equal(arrived, 2, 'the dropped ones are not sent later');
  const next = forwarder.forward('traces', 'application/json', body);
  while (arrived < 3) await new Promise<void>((resolve) => waiters.push(resolve));
  for (const res of held.splice(0)) res.writeHead(200).end('{}');
  await next;
  t.equal(arrived, 3, 'once the collector answered, exports go through again');
});
