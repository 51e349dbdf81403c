/**
 * The receiver (`POST /otlp/{token}/v1/{signal}`) never answers 200 for an export it will not forward: while
 * the collector it forwards to is behind (64 MiB of exports waiting on it) or did not answer its last export,
 * an export is refused 503 with `Retry-After` and a `google.rpc.Status` UNAVAILABLE (14), as OTLP/HTTP has a
 * server ask an exporter to retry later, and is not counted on the run. Without a collector nothing backs up.
 * Real parts: a node:http collector that holds its answers, and the sandbox gateway the other tests use.
 */
import { createServer, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { launchBobHolding, startSandboxCompany } from '../actors/sandbox/harness.js';
import { captureLogs } from '../actors/toolservers/harness.js';

const protoType = 'application/x-protobuf';
const MiB = 1024 * 1024;

const varint = (n: number): Buffer => {
  const out: number[] = [];
  for (; n >= 0x80; n = Math.floor(n / 0x80)) out.push((n % 0x80) | 0x80);
  return Buffer.from([...out, n]);
};
/** A length-delimited protobuf field (wire type 2). */
const field = (number: number, bytes: Buffer): Buffer =>
  Buffer.concat([Buffer.from([(number << 3) | 2]), varint(bytes.length), bytes]);

/** An ExportTraceServiceRequest of one span whose name is `bytes` long (resource 1 → scope 2 → span 2). */
const bigTraces = (bytes: number): Buffer =>
  field(1, field(2, field(2, field(5, Buffer.alloc(bytes, 0x78)))));
/** The same as JSON: one span, its name `bytes` long. */
const bigJsonTraces = (bytes: number): string =>
  JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [{ name: 'x'.repeat(bytes) }] }] }] });

const post = (url: string, body: string | Uint8Array, type: string) =>
  fetch(url, { method: 'POST', headers: { 'content-type': type }, body });

/** A collector that reads each export whole and answers none until told to. */
async function heldCollector(t: Test) {
  const held: ServerResponse[] = [];
  let arrived = 0;
  const waiters = new Set<() => void>();
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      arrived += 1;
      held.push(res);
      for (const wake of [...waiters]) wake();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  t.teardown(() => (server.listening ? close() : undefined));
  const address = server.address();
  return {
    close,
    url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    arrived: () => arrived,
    until: (n: number) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`${arrived} exports reached the collector, not ${n}`));
        }, 60_000);
        const check = (): void => {
          if (arrived < n) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve();
        };
        waiters.add(check);
        check();
      }),
    release: () => {
      for (const res of held.splice(0)) res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    },
  };
}

/** The run's receiver endpoint, as its environment holds it. */
const endpointOf = (pid: number): string =>
  readFileSync(`/proc/${pid}/environ`, 'utf8')
    .split('\0')
    .find((e) => e.startsWith('OTEL_EXPORTER_OTLP_ENDPOINT='))!
    .split('=')[1]!;

/** Posts until the receiver takes it, as an exporter honouring Retry-After would (here without the wait). */
async function retried(url: string, body: Uint8Array, within = 20_000): Promise<Response> {
  const deadline = Date.now() + within;
  for (;;) {
    const res = await post(url, body, protoType);
    if (res.status !== 503 || Date.now() > deadline) return res;
    await res.arrayBuffer();
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

t.test(
  'OTLP/HTTP: while the collector is behind, an export is refused 503 UNAVAILABLE with Retry-After, not dropped',
  async (t) => {
    const collector = await heldCollector(t);
    // The collector holds its answers as long as the test needs: not past the forwarder's timeout, or the
    // exports held would count as failed and the collector as unreachable (the next test's case).
    const h = await startSandboxCompany(t, {
      script: [],
      env: { FAKE_HOLD: '1' },
      collector: collector.url,
      upstreamEnv: { OTEL_EXPORTER_OTLP_TIMEOUT: '300000' },
    });
    const run = await launchBobHolding(h, 'sb-otlp-behind', 'a');
    const endpoint = `${endpointOf(run.pid!)}/v1/traces`;
    const big = bigTraces(15 * MiB);
    for (let i = 0; i < 4; i += 1)
      t.equal(
        (await post(endpoint, big, protoType)).status,
        200,
        `export ${i + 1}: taken (60 MiB in flight)`,
      );
    await collector.until(4);

    const refused = await post(endpoint, big, protoType);
    t.equal(refused.status, 503, 'past 64 MiB waiting on the collector: 503');
    t.equal(refused.headers.get('retry-after'), '5', 'Retry-After: the exporter comes back in a few seconds');
    t.equal(refused.headers.get('content-type'), protoType, 'its Status in protobuf, as the request was');
    const status = Buffer.from(await refused.arrayBuffer());
    t.equal(status[0], 0x08, 'google.rpc.Status code (field 1)');
    t.equal(status[1], 14, 'UNAVAILABLE');
    t.match(status.subarray(2).toString('utf8'), /collector .* is behind/, 'the message says why');
    const json = await post(endpoint, bigJsonTraces(15 * MiB), 'application/json');
    t.equal(json.status, 503, 'a JSON export too');
    t.equal(json.headers.get('retry-after'), '5');
    t.match(await json.json(), { code: 14, message: /is behind/, details: [] }, 'a JSON Status');
    t.equal((await post(endpoint, bigTraces(10), protoType)).status, 200, 'one that fits is still taken');
    await collector.until(5);

    collector.release();
    t.equal((await retried(endpoint, big)).status, 200, 'taken once the collector caught up');
    await collector.until(6);
    collector.release();
    const counted = await h.waitRun((r) => r.sandbox_id === 'sb-otlp-behind' && r.telemetry.traces === 6);
    t.same(counted.telemetry.spans, 6, 'only what was taken is counted on the run');
    t.equal(collector.arrived(), 6, 'and every export taken reached the collector');
    writeFileSync(join(run.workdir!, '..', 'control', 'release'), '');
    const done = await h.waitRun((r) => r.sandbox_id === 'sb-otlp-behind' && r.status === 'done');
    t.equal(done.telemetry.traces, 6, 'the refused ones never counted');
  },
);

t.test(
  'OTLP/HTTP: once the collector is unreachable, exports are refused 503 until it answers',
  async (t) => {
    const gone = await heldCollector(t);
    const logs = captureLogs();
    const h = await startSandboxCompany(t, {
      script: [],
      env: { FAKE_HOLD: '1' },
      collector: gone.url,
      logs,
    });
    const run = await launchBobHolding(h, 'sb-otlp-down', 'b');
    const endpoint = `${endpointOf(run.pid!)}/v1/traces`;
    // The collector goes away: its port refuses connections.
    await gone.close();
    t.equal(
      (await post(endpoint, bigTraces(10), protoType)).status,
      200,
      'taken: nothing is known amiss yet',
    );
    await logs.waitFor((l) => l.msg === 'OTLP forward failed');
    const refused = await post(endpoint, bigTraces(10), protoType);
    t.equal(refused.status, 503, 'the collector did not answer the last export: 503');
    t.equal(refused.headers.get('retry-after'), '5');
    const status = Buffer.from(await refused.arrayBuffer());
    t.equal(status[1], 14, 'UNAVAILABLE');
    t.match(status.subarray(2).toString('utf8'), /did not answer/, 'the message says why');
    writeFileSync(join(run.workdir!, '..', 'control', 'release'), '');
    const done = await h.waitRun((r) => r.sandbox_id === 'sb-otlp-down' && r.status === 'done');
    t.equal(done.telemetry.traces, 1, 'the refused export is not counted');
  },
);

t.test('OTLP/HTTP: without a collector nothing backs up and every export is taken', async (t) => {
  const h = await startSandboxCompany(t, { script: [], env: { FAKE_HOLD: '1' } });
  const run = await launchBobHolding(h, 'sb-otlp-alone', 'c');
  const endpoint = `${endpointOf(run.pid!)}/v1/traces`;
  const big = bigTraces(15 * MiB);
  for (let i = 0; i < 6; i += 1)
    t.equal((await post(endpoint, big, protoType)).status, 200, `export ${i + 1}`);
  writeFileSync(join(run.workdir!, '..', 'control', 'release'), '');
  const done = await h.waitRun((r) => r.sandbox_id === 'sb-otlp-alone' && r.status === 'done');
  t.equal(done.telemetry.traces, 6);
});
