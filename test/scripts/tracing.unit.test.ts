/**
 * The node's tracing is off unless an OTLP endpoint is set (ops/tracing.md): then the process gets the
 * no-op tracer and the gateway keeps its own observer, so the request path pays nothing.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import t from 'tap';
import type { RequestObserver } from '../../http/index.js';
import { noopTracer } from '../../schema/index.js';
import { requestSpans, startTracing } from '../../scripts/tracing.js';
import { until } from '../harness/until.js';

const logger = pino({ level: 'silent' });
const start = (env: Record<string, string | undefined>) =>
  startTracing({ env, logger, version: '0.0.0', nodeId: 'n1' });

t.test('no endpoint, no exporter: the no-op tracer', async (t) => {
  for (const env of [
    {},
    { OTEL_SERVICE_NAME: 'svc', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_HEADERS: 'a=b' },
    { OTEL_EXPORTER_OTLP_ENDPOINT: '  ' },
    { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'true' },
    { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_TRACES_EXPORTER: 'none' },
    { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' },
    // Booleans and lists read as the SDK reads them.
    { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'TRUE' },
    { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: ' true ' },
    { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_TRACES_EXPORTER: ' none' },
    // A blank traces-only protocol leaves the general one in force: grpc is still refused.
    {
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4317',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: '',
    },
  ]) {
    const tracing = await start(env);
    t.equal(tracing.tracer, noopTracer, JSON.stringify(env));
    await tracing.shutdown();
  }
  const observer: RequestObserver = { answered: () => undefined };
  t.equal(requestSpans(noopTracer, observer), observer, 'the gateway keeps its observer as it is');
});

t.test('an endpoint, general or for traces (a blank one is unset): the SDK tracer', async (t) => {
  for (const env of [
    { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1', OTEL_TRACES_SAMPLER: 'always_off' },
    { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:1/v1/traces', OTEL_TRACES_SAMPLER: 'always_off' },
    // An empty traces endpoint is unset, as the exporter reads it (a compose file's `${VAR:-}`): the base URL counts.
    {
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1',
      OTEL_TRACES_SAMPLER: 'always_off',
    },
    {
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1',
      OTEL_SDK_DISABLED: 'false',
      OTEL_TRACES_SAMPLER: 'always_off',
    },
  ]) {
    const tracing = await start(env);
    t.equal(tracing.tracer.enabled, true, JSON.stringify(env));
    await tracing.shutdown();
  }
});

t.test('a root span joins the trace id it is given; a child its parent’s', async (t) => {
  // Sampled out: ids are still made, nothing is exported to the closed port.
  const tracing = await start({
    OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1',
    OTEL_TRACES_SAMPLER: 'always_off',
  });
  const traceId = '0123456789abcdef0123456789abcdef';
  const root = tracing.tracer.startSpan('turn', { traceId });
  const child = tracing.tracer.startSpan('phase plan', { parent: root, traceId: 'f'.repeat(32) });
  const other = tracing.tracer.startSpan('turn', { traceId: 'not-hex' });
  t.equal(root.traceId, traceId);
  t.equal(child.traceId, traceId, 'a child keeps its parent’s trace');
  t.not(other.traceId, traceId);
  t.match(other.traceId, /^[0-9a-f]{32}$/, 'an unusable trace id gets a fresh one');
  for (const s of [child, root, other]) s.end();
  await tracing.shutdown();
});

t.test('a failed export is logged at WARNING by the node, not dropped silently', async (t) => {
  const lines: Array<Record<string, unknown>> = [];
  const captured = pino(
    { level: 'info' },
    { write: (l: string) => void lines.push(JSON.parse(l) as Record<string, unknown>) },
  );
  // Port 1 on loopback refuses at once: every export fails. The exporter reads its endpoint from the process.
  const before = process.env['OTEL_EXPORTER_OTLP_ENDPOINT'];
  process.env['OTEL_EXPORTER_OTLP_ENDPOINT'] = 'http://127.0.0.1:1';
  t.teardown(() => {
    if (before === undefined) delete process.env['OTEL_EXPORTER_OTLP_ENDPOINT'];
    else process.env['OTEL_EXPORTER_OTLP_ENDPOINT'] = before;
  });
  const tracing = await startTracing({
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1', OTEL_BSP_SCHEDULE_DELAY: '20' },
    logger: captured,
    version: '0.0.0',
    nodeId: 'n1',
  });
  t.teardown(() => tracing.shutdown());
  const failed = (): Array<Record<string, unknown>> =>
    lines.filter((l) => l['event'] === 'tracing_sdk_warning');
  tracing.tracer.startSpan('first').end();
  await until(
    () => Promise.resolve(failed().length),
    (n) => n > 0,
  );
  t.match(failed()[0], { level: 40, msg: /OpenTelemetry/, error: /ECONNREFUSED 127\.0\.0\.1:1\b/ });
});

t.test(
  'a collector that never answers costs the drain its flush bound, not an unfinished step',
  async (t) => {
    const lines: Array<Record<string, unknown>> = [];
    const captured = pino(
      { level: 'info' },
      { write: (l: string) => void lines.push(JSON.parse(l) as Record<string, unknown>) },
    );
    // Takes the export and never answers (a collector behind a dropping firewall).
    const server = createServer(() => undefined);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    t.teardown(() => {
      server.closeAllConnections();
      server.close();
    });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const before = process.env['OTEL_EXPORTER_OTLP_ENDPOINT'];
    process.env['OTEL_EXPORTER_OTLP_ENDPOINT'] = url;
    t.teardown(() => {
      if (before === undefined) delete process.env['OTEL_EXPORTER_OTLP_ENDPOINT'];
      else process.env['OTEL_EXPORTER_OTLP_ENDPOINT'] = before;
    });
    const tracing = await startTracing({
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: url },
      logger: captured,
      version: '0.0.0',
      nodeId: 'n1',
    });
    tracing.tracer.startSpan('buffered').end();
    const started = performance.now();
    await tracing.shutdown();
    // The drain gives each step 5 s; the exporter alone would wait its 10 s timeout.
    t.ok(performance.now() - started < 4_000, 'the flush gives up within its bound');
    t.match(
      lines.find((l) => String(l['msg']).startsWith('spans not flushed at drain')),
      { level: 40 },
      'the spans it dropped are logged at WARNING',
    );
  },
);
