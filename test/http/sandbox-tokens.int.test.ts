/**
 * The token routes (`/otlp/{token}/v1/{signal}`, `/mcp/{token}`) refuse every token but a running run's,
 * whatever the bearer, with spec-shaped answers (OTLP's refusals are `google.rpc.Status`, read on the wire
 * by otlp.wire.int.test.ts); they take OTLP in protobuf and JSON.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import t, { type Test } from 'tap';
import type { Step } from '../fixtures/llm/script.js';
import { launchBobHolding, startSandboxCompany } from '../actors/sandbox/harness.js';
import { captureLogs } from '../actors/toolservers/harness.js';

const post = (
  url: string,
  body: string | Uint8Array,
  type = 'application/json',
  headers: Record<string, string> = {},
) => fetch(url, { method: 'POST', headers: { 'content-type': type, ...headers }, body });

const mcpInit = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } },
});
const mcpHeaders = { accept: 'application/json, text/event-stream' };

/** An OTLP/HTTP refusal of a JSON request: its status, and a JSON `google.rpc.Status` with its gRPC code. */
async function otlpRefused(t: Test, res: Response, status: number, code: number, what: string) {
  t.equal(res.status, status, `${what}: ${status}`);
  t.match(await res.json(), { code, message: String, details: [] }, `${what}: google.rpc.Status ${code}`);
}

/** A protobuf ExportTraceServiceRequest with one resource, one scope and `n` (empty) spans. */
function protoTraces(n: number): Uint8Array {
  const scopeSpans = Array.from({ length: n }, () => [0x12, 0x00]).flat(); // spans = 2
  const resourceSpans = [0x12, scopeSpans.length, ...scopeSpans]; // scope_spans = 2
  return Uint8Array.from([0x0a, resourceSpans.length, ...resourceSpans]); // resource_spans = 1
}

t.test(
  'the token routes refuse unknown, malformed and ended runs, and are never behind the bearer',
  async (t) => {
    const script: Step[] = [];
    const h = await startSandboxCompany(t, { script, env: { FAKE_HOLD: '1' } });
    const run = await launchBobHolding(h, 'sb-tokens', 'f');
    t.equal(run.status, 'running');
    // The token only the run's environment holds.
    const pid = run.pid!;
    const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
    const endpoint = environ.find((e) => e.startsWith('OTEL_EXPORTER_OTLP_ENDPOINT='))!.split('=')[1]!;
    const mcpUrl = environ.find((e) => e.startsWith('SVC_MCP_URL='))!.split('=')[1]!;
    const token = endpoint.split('/otlp/')[1]!;
    t.equal(token.length, 43);
    t.notOk(
      environ.some((e) => e.startsWith('OTEL_EXPORTER_OTLP_HEADERS=')),
      'no upstream headers in the run',
    );

    const refused = async (res: Response, status: number, code: string, what: string) => {
      t.equal(res.status, status, `${what}: ${status}`);
      const body = (await res.json()) as { problems?: unknown };
      t.match(body, { error: code }, `${what}: ${code}`);
      // Spec "Errors": an invalid_body carries `problems`.
      if (code === 'invalid_body') t.match(body.problems, [{ path: '', kind: 'shape' }], `${what}: problems`);
    };
    const other = 'A'.repeat(43);
    await otlpRefused(
      t,
      await post(`${h.base}/otlp/${other}/v1/traces`, '{}'),
      401,
      16,
      'otlp, unknown token',
    );
    await otlpRefused(
      t,
      await post(`${h.base}/otlp/short/v1/traces`, '{}'),
      401,
      16,
      'otlp, malformed token',
    );
    await refused(
      await post(`${h.base}/mcp/${other}`, mcpInit, 'application/json', mcpHeaders),
      401,
      'invalid_token',
      'mcp, unknown token',
    );
    await refused(
      await fetch(`${h.base}/mcp/${other}`),
      405,
      'method_not_allowed',
      'mcp GET: no stream to open',
    );
    await refused(
      await post(`${h.base}/otlp/${token}/v1/profiles`, '{}'),
      404,
      'no_route',
      'otlp, unknown signal',
    );
    const media = await post(`${h.base}/otlp/${token}/v1/traces`, 'x', 'text/plain');
    await otlpRefused(t, media, 415, 3, 'otlp, other media type');
    await otlpRefused(t, await post(`${h.base}/otlp/${token}/v1/traces`, '{nope'), 400, 3, 'otlp, bad JSON');
    const truncated = await post(
      `${h.base}/otlp/${token}/v1/traces`,
      Uint8Array.from([0x0a, 0x7f]),
      'application/x-protobuf',
    );
    t.equal(truncated.status, 400, 'otlp, truncated protobuf: 400');
    t.equal(truncated.headers.get('content-type'), 'application/x-protobuf', 'its Status in protobuf');

    // Accepted without any bearer (the guard requires one for reads on this gateway), protobuf and JSON.
    const proto = await post(`${endpoint}/v1/traces`, protoTraces(3), 'application/x-protobuf');
    t.equal(proto.status, 200);
    t.equal(proto.headers.get('content-type'), 'application/x-protobuf');
    t.equal((await post(`${endpoint}/v1/metrics`, '{"resourceMetrics":[]}')).status, 200);
    t.equal((await post(`${endpoint}/v1/logs`, '{"resourceLogs":[]}')).status, 200);
    const counted = await h.waitRun((r) => r.sandbox_id === 'sb-tokens' && r.telemetry.logs === 1);
    t.same(counted.telemetry, { traces: 1, metrics: 1, logs: 1, spans: 3 });
    const init = await post(mcpUrl, mcpInit, 'application/json', mcpHeaders);
    t.equal(init.status, 200, 'the bridge answers the running run');
    t.match(await init.json(), { result: { serverInfo: { name: 'svc-seat-bob' } } });
    const stream = await fetch(mcpUrl, { headers: { accept: 'text/event-stream' } });
    t.equal(stream.status, 405, 'GET for a server stream is refused at once, not held open');
    t.equal(stream.headers.get('allow'), 'POST, DELETE');
    t.match(await stream.json(), { error: 'method_not_allowed' });

    // The run ends: its token is refused from then on, on both routes, like an unknown one.
    writeFileSync(join(run.workdir!, '..', 'control', 'release'), '');
    await h.waitRun((r) => r.sandbox_id === 'sb-tokens' && r.status === 'done');
    await otlpRefused(t, await post(`${endpoint}/v1/traces`, '{}'), 401, 16, 'otlp, ended run');
    await refused(
      await post(mcpUrl, mcpInit, 'application/json', mcpHeaders),
      401,
      'invalid_token',
      'mcp, ended run',
    );
  },
);

t.test(
  'without SVC_SANDBOX_OTEL_RECEIVER_URL a run gets no token URL and neither route is wired',
  async (t) => {
    const h = await startSandboxCompany(t, { script: [], env: { FAKE_HOLD: '1' }, receiver: false });
    const run = await launchBobHolding(h, 'sb-no-receiver', 'e');
    t.equal(run.status, 'running');
    const environ = readFileSync(`/proc/${run.pid!}/environ`, 'utf8').split('\0');
    t.notOk(
      environ.some((e) => e.startsWith('SVC_MCP_URL=')),
      'no bridge URL given',
    );
    t.notOk(
      environ.some((e) => e.startsWith('OTEL_EXPORTER_OTLP_ENDPOINT=')),
      'no receiver URL given',
    );
    const token = 'A'.repeat(43);
    for (const [url, body] of [
      [`${h.base}/mcp/${token}`, mcpInit],
      [`${h.base}/otlp/${token}/v1/traces`, '{}'],
    ] as const) {
      const res = await post(url, body, 'application/json', mcpHeaders);
      t.equal(res.status, 404, `${url.replace(h.base, '')}: 404`);
      t.match(await res.json(), { error: 'no_route' });
    }
    writeFileSync(join(run.workdir!, '..', 'control', 'release'), '');
    await h.waitRun((r) => r.sandbox_id === 'sb-no-receiver' && r.status === 'done');
  },
);

t.test('a chatty run’s exports are counted on its record without storing a record per export', async (t) => {
  const h = await startSandboxCompany(t, { script: [], env: { FAKE_HOLD: '1' } });
  const run = await launchBobHolding(h, 'sb-chatty', 'c');
  const environ = readFileSync(`/proc/${run.pid!}/environ`, 'utf8').split('\0');
  const endpoint = environ.find((e) => e.startsWith('OTEL_EXPORTER_OTLP_ENDPOINT='))!.split('=')[1]!;
  const span = JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [{}, {}] }] }] });
  const exports = 60;
  for (let i = 0; i < exports; i += 1) {
    t.equal((await post(`${endpoint}/v1/traces`, span)).status, 200);
  }
  t.equal((await post(`${endpoint}/v1/logs`, '{"resourceLogs":[]}')).status, 200);
  await h.waitRun((r) => r.sandbox_id === 'sb-chatty' && r.telemetry.traces === exports);
  writeFileSync(join(run.workdir!, '..', 'control', 'release'), '');
  const done = await h.waitRun((r) => r.sandbox_id === 'sb-chatty' && r.status === 'done');
  t.same(
    done.telemetry,
    { traces: exports, metrics: 0, logs: 1, spans: 2 * exports },
    'every export counted',
  );
  let stored = 0;
  for await (const msg of h.bus.replay('SVC_SANDBOX'))
    if (msg.subject === 'svc.sandbox.sb-chatty') stored += 1;
  t.ok(stored <= 10, `the run's stream holds a handful of records, not one per export (${stored})`);
});

t.test(
  'gzip-encoded exports are taken as OTLP/HTTP allows; other encodings (415) and bombs are refused',
  async (t) => {
    const h = await startSandboxCompany(t, { script: [], env: { FAKE_HOLD: '1' } });
    const run = await launchBobHolding(h, 'sb-gzip', 'b');
    const environ = readFileSync(`/proc/${run.pid!}/environ`, 'utf8').split('\0');
    const endpoint = environ.find((e) => e.startsWith('OTEL_EXPORTER_OTLP_ENDPOINT='))!.split('=')[1]!;
    const json = JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [{}, {}] }] }] });
    const gzipped = await post(`${endpoint}/v1/traces`, gzipSync(json), 'application/json', {
      'content-encoding': 'gzip',
    });
    t.equal(gzipped.status, 200, 'a gzip JSON export');
    const proto = await post(`${endpoint}/v1/traces`, gzipSync(protoTraces(3)), 'application/x-protobuf', {
      'content-encoding': 'gzip',
    });
    t.equal(proto.status, 200, 'a gzip protobuf export');
    const counted = await h.waitRun((r) => r.sandbox_id === 'sb-gzip' && r.telemetry.traces === 2);
    t.equal(counted.telemetry.spans, 5, 'their spans counted');

    const refused = (res: Response, what: string) => otlpRefused(t, res, 400, 3, what);
    const br = await post(`${endpoint}/v1/traces`, json, 'application/json', { 'content-encoding': 'br' });
    await otlpRefused(t, br, 415, 3, 'another encoding');
    await refused(
      await post(`${endpoint}/v1/traces`, json, 'application/json', { 'content-encoding': 'gzip' }),
      'not gzip at all',
    );
    // 64 MiB of zeros in a few dozen KiB: refused once it inflates past the route's limit.
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024));
    await refused(
      await post(`${endpoint}/v1/logs`, bomb, 'application/json', { 'content-encoding': 'gzip' }),
      'a body inflating past 16 MiB',
    );
    writeFileSync(join(run.workdir!, '..', 'control', 'release'), '');
    await h.waitRun((r) => r.sandbox_id === 'sb-gzip' && r.status === 'done');
  },
);

t.test('a receiver URL that is not an http(s) base URL gives runs no token URL, and says so', async (t) => {
  const logs = captureLogs();
  const h = await startSandboxCompany(t, {
    script: [],
    env: { FAKE_HOLD: '1' },
    receiver: 'localhost:8080',
    logs,
  });
  await logs.waitFor(
    (l) => l.msg === 'SVC_SANDBOX_OTEL_RECEIVER_URL is not an http(s) base URL; runs get no token URLs',
    10_000,
  );
  const run = await launchBobHolding(h, 'sb-bad-url', 'a');
  const environ = readFileSync(`/proc/${run.pid!}/environ`, 'utf8').split('\0');
  t.notOk(
    environ.some((e) => e.startsWith('OTEL_EXPORTER_OTLP_ENDPOINT=') || e.startsWith('SVC_MCP_URL=')),
    'no broken endpoint handed to the run',
  );
  const res = await post(`${h.base}/otlp/${'A'.repeat(43)}/v1/traces`, '{}');
  t.equal(res.status, 404, 'the token routes are not wired');
  writeFileSync(join(run.workdir!, '..', 'control', 'release'), '');
  await h.waitRun((r) => r.sandbox_id === 'sb-bad-url' && r.status === 'done');
});
