/**
 * Forwarding a run's exports upstream holds only so much at once: while the collector is slow, exports
 * past the in-flight limit are refused at once (and logged) instead of piling up in the node's memory, so
 * the receiver can tell the exporter to retry; forwarding resumes once the collector answers. A collector
 * that failed is left alone for the Retry-After window, then probed with one export.
 */
import { createServer, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import t from 'tap';
import { otlpForwarder } from '../../../actors/index.js';
import { captureLogs } from '../toolservers/harness.js';

t.test('exports past the in-flight limit are refused at once while the collector is slow', async (t) => {
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
  const admissions = Array.from({ length: 5 }, () => forwarder.forward('traces', 'application/json', body));
  t.same(
    admissions.map((a) => (a.taken ? 'taken' : a.why)),
    ['taken', 'taken', 'behind', 'behind', 'behind'],
    'two exports in flight (800 KiB of 1 MiB); the other three refused at once',
  );
  t.match(admissions[2], { retryAfterSeconds: 5 }, 'the refusal says when to come back');
  while (arrived < 2) await new Promise<void>((resolve) => waiters.push(resolve));
  await logs.waitFor((l) => l.msg === 'OTLP export refused: the collector is behind');

  for (const res of held.splice(0)) res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  await Promise.all(admissions.map((a) => (a.taken ? a.sent : Promise.resolve())));
  t.equal(arrived, 2, 'the refused ones are not sent later');
  const next = forwarder.forward('traces', 'application/json', body);
  t.ok(next.taken, 'once the collector answered, exports are taken again');
  while (arrived < 3) await new Promise<void>((resolve) => waiters.push(resolve));
  for (const res of held.splice(0)) res.writeHead(200).end('{}');
  if (next.taken) await next.sent;
  t.equal(arrived, 3, 'and go through');
});

t.test('without an endpoint every export is taken and nothing is sent', async (t) => {
  const logs = captureLogs();
  const forwarder = otlpForwarder({ env: {}, logger: logs.logger, maxInFlightBytes: 10 });
  const admission = forwarder.forward('logs', 'application/json', Buffer.alloc(100));
  t.ok(admission.taken, 'taken whatever its size: nothing backs up');
  t.equal(forwarder.endpoint('logs'), null);
});

t.test(
  'a collector that failed is left alone for Retry-After seconds, then probed with one export',
  async (t) => {
    const answers: number[] = [];
    let arrived = 0;
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        arrived += 1;
        res.writeHead(answers.shift() ?? 200).end('{}');
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
    let clock = 1_000_000;
    const forwarder = otlpForwarder({
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` },
      logger: captureLogs().logger,
      now: () => clock,
    });
    const send = () => forwarder.forward('traces', 'application/json', Buffer.from('{}'));
    const settled = async (a: ReturnType<typeof send>) => (a.taken ? a.sent : undefined);

    answers.push(503);
    await settled(send());
    const refused = send();
    t.match(
      refused,
      { taken: false, why: 'unreachable', retryAfterSeconds: 5 },
      'after a 503 upstream: refused',
    );
    const metrics = forwarder.forward('metrics', 'application/json', Buffer.from('{}'));
    t.ok(metrics.taken, 'another signal’s endpoint is not');
    await settled(metrics);
    clock += 4_999;
    t.equal(send().taken, false, 'still within the window');

    clock += 1;
    answers.push(502);
    const probe = send();
    t.ok(probe.taken, 'the window over, one export goes as a probe');
    t.equal(send().taken, false, 'the others wait for its answer');
    await settled(probe);
    t.equal(send().taken, false, 'the probe failed: a new window');
    clock += 5_000;
    const second = send();
    t.ok(second.taken, 'the next probe');
    await settled(second);
    const after = send();
    t.ok(after.taken, 'answered: exports are taken again');
    await settled(after);
    t.equal(arrived, 5, 'only what was taken was sent');

    const unanswered = otlpForwarder({
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}/never` },
      logger: captureLogs().logger,
      now: () => clock,
    });
    answers.push(400);
    await settled(unanswered.forward('logs', 'application/json', Buffer.from('{}')));
    t.ok(
      unanswered.forward('logs', 'application/json', Buffer.from('{}')).taken,
      'a 400 is the export’s fault, not the collector’s: nothing is held back',
    );
  },
);

t.test(
  'a collector that does not answer within OTEL_EXPORTER_OTLP_TIMEOUT counts as unreachable',
  async (t) => {
    const server = createServer((req) => req.resume());
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
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`, OTEL_EXPORTER_OTLP_TIMEOUT: '200' },
      logger: logs.logger,
    });
    const first = forwarder.forward('logs', 'application/json', Buffer.from('{}'));
    t.ok(first.taken);
    if (first.taken) await first.sent;
    t.ok(
      logs.lines.some((l) => l.msg === 'OTLP forward failed'),
      'the timed-out forward is logged',
    );
    t.match(forwarder.forward('logs', 'application/json', Buffer.from('{}')), {
      taken: false,
      why: 'unreachable',
    });
  },
);
