/**
 * The coding runs' receiver (`POST /otlp/{token}/v1/{signal}`) as an OTLP/HTTP exporter meets it, on the wire:
 * a refusal's body is a `google.rpc.Status` in the request's own encoding (protobuf or JSON), a success
 * the signal's empty Export*ServiceResponse in that encoding, another media type 415, and metrics and
 * logs exports are checked as deeply as traces. The messages are encoded and read by hand here, so the
 * test holds the bytes to the .proto field numbers, not to the node's own reader.
 */
import { request as rawRequest } from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import t from 'tap';
import { launchBobHolding, startSandboxCompany } from '../actors/sandbox/harness.js';

const varint = (n: number): number[] => {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  return [...out, n];
};
/** A length-delimited field (wire type 2). */
const field = (number: number, bytes: readonly number[]): number[] => [
  (number << 3) | 2,
  ...varint(bytes.length),
  ...bytes,
];
const text = (s: string): number[] => [...Buffer.from(s, 'utf8')];

/**
 * An Export{Trace,Metrics,Logs}ServiceRequest: the three share their shape — resource_* = 1 → scope_* = 2
 * → spans / metrics / log_records = 2 — each item here carrying only its name (field 1 of a metric, 5 of a
 * span; a log record's body would be 5 too, an AnyValue, left out).
 */
function protoExport(signal: 'traces' | 'metrics' | 'logs', items: number): Uint8Array {
  const item = signal === 'metrics' ? field(1, text('m')) : signal === 'traces' ? field(5, text('s')) : [];
  const scope = Array.from({ length: items }, () => field(2, item)).flat();
  return Uint8Array.from(field(1, field(2, scope)));
}

interface Status {
  code: number;
  message: string;
  details: number;
}

/** A protobuf `google.rpc.Status` (code = 1 varint, message = 2 string, details = 3 repeated Any). */
function readStatus(buf: Uint8Array): Status {
  const status: Status = { code: 0, message: '', details: 0 };
  let i = 0;
  const readVarint = (): number => {
    let n = 0;
    for (let shift = 0; ; shift += 7) {
      const byte = buf[i++];
      if (byte === undefined) throw new Error('truncated varint');
      n += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) return n;
    }
  };
  while (i < buf.length) {
    const key = readVarint();
    const [number, wire] = [key >> 3, key & 7];
    if (wire === 0 && number === 1) status.code = readVarint();
    else if (wire === 2) {
      const length = readVarint();
      const bytes = buf.subarray(i, i + length);
      if (bytes.length !== length) throw new Error('truncated field');
      i += length;
      if (number === 2) status.message = Buffer.from(bytes).toString('utf8');
      else if (number === 3) status.details += 1;
      else throw new Error(`field ${number} is not Status's`);
    } else throw new Error(`field ${number} (wire type ${wire}) is not Status's`);
  }
  return status;
}

const post = (url: string, body: string | Uint8Array, type: string, headers: Record<string, string> = {}) =>
  fetch(url, { method: 'POST', headers: { 'content-type': type, ...headers }, body });

const protoType = 'application/x-protobuf';

t.test(
  'OTLP/HTTP: a refusal is a google.rpc.Status in the request encoding, another media type 415',
  async (t) => {
    const h = await startSandboxCompany(t, { script: [], env: { FAKE_HOLD: '1' } });
    const run = await launchBobHolding(h, 'sb-otlp-status', 'd');
    const environ = readFileSync(`/proc/${run.pid!}/environ`, 'utf8').split('\0');
    const endpoint = environ.find((e) => e.startsWith('OTEL_EXPORTER_OTLP_ENDPOINT='))!.split('=')[1]!;
    const stranger = `${h.base}/otlp/${'A'.repeat(43)}`;

    /** A protobuf refusal: its status, its Content-Type, and a Status with the matching gRPC code. */
    const protoRefusal = async (
      res: Response,
      status: number,
      code: number,
      what: string,
      type = protoType,
    ) => {
      t.equal(res.status, status, `${what}: ${status}`);
      t.equal(res.headers.get('content-type'), type, `${what}: the request's own Content-Type`);
      const body = readStatus(new Uint8Array(await res.arrayBuffer()));
      t.equal(body.code, code, `${what}: google.rpc.Code ${code}`);
      t.ok(body.message.length > 0, `${what}: a message says why (${body.message})`);
      t.notOk(body.message.includes('A'.repeat(43)), `${what}: never quoting the token`);
      return body;
    };
    const jsonRefusal = async (res: Response, status: number, code: number, what: string) => {
      t.equal(res.status, status, `${what}: ${status}`);
      t.match(res.headers.get('content-type'), /^application\/json/, `${what}: JSON, as the request was`);
      const body = (await res.json()) as Record<string, unknown>;
      t.same(Object.keys(body).sort(), ['code', 'details', 'message'], `${what}: a Status and only that`);
      t.equal(body['code'], code, `${what}: google.rpc.Code ${code}`);
      t.type(body['message'], 'string', `${what}: a message says why`);
      t.same(body['details'], [], `${what}: no details`);
    };

    const unknown = await post(`${stranger}/v1/traces`, protoExport('traces', 1), protoType);
    const status = await protoRefusal(unknown, 401, 16, 'protobuf, unknown token');
    t.match(status.message, /invalid_token/, 'the node’s code is in the message');
    await jsonRefusal(
      await post(`${stranger}/v1/logs`, '{}', 'application/json'),
      401,
      16,
      'JSON, unknown token',
    );
    await protoRefusal(
      await post(`${endpoint}/v1/traces`, Uint8Array.from([0x0a, 0x7f]), protoType),
      400,
      3,
      'truncated protobuf',
    );
    await protoRefusal(
      await post(`${endpoint}/v1/metrics`, Uint8Array.from([0x0a, 0x7f]), 'application/protobuf'),
      400,
      3,
      'truncated protobuf under the other protobuf name',
      'application/protobuf',
    );
    await jsonRefusal(await post(`${endpoint}/v1/traces`, '{nope', 'application/json'), 400, 3, 'bad JSON');
    await protoRefusal(
      await post(`${endpoint}/v1/logs`, 'not gzip', protoType, { 'content-encoding': 'gzip' }),
      400,
      3,
      'protobuf said to be gzip and not',
    );

    // Spec: an unsupported Content-Type is 415; the Status is JSON (the request named no encoding OTLP has).
    const other = await post(`${endpoint}/v1/traces`, 'x', 'text/plain');
    await jsonRefusal(other, 415, 3, 'text/plain');
    const encoded = await post(`${endpoint}/v1/traces`, '{}', 'application/json', {
      'content-encoding': 'br',
    });
    await jsonRefusal(encoded, 415, 3, 'another Content-Encoding');
    t.equal(
      encoded.headers.get('accept-encoding'),
      'gzip',
      'the encodings taken are named (RFC 9110 12.5.3)',
    );

    // A body past the route's limit is refused unread, still as a Status (the gateway's refusal, in OTLP's shape).
    const big = await new Promise<{ status: number; type: string; body: Buffer }>((resolve, reject) => {
      const req = rawRequest(
        `${endpoint}/v1/traces`,
        { method: 'POST', headers: { 'content-type': protoType, 'content-length': String(17 * 2 ** 20) } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              type: res.headers['content-type'] ?? '',
              body: Buffer.concat(chunks),
            }),
          );
        },
      );
      req.on('error', reject);
      req.flushHeaders();
    });
    t.equal(big.status, 413, 'over 16 MiB: 413 (body_too_large), not retried');
    t.equal(big.type, protoType);
    t.equal(readStatus(big.body).code, 3, 'over 16 MiB: a protobuf Status');
    t.match(
      readStatus(big.body).message,
      /^body_too_large: /,
      'over 16 MiB: the node’s code leads the message',
    );

    // Not OTLP paths: the node's own refusals, as before.
    const signal = await post(`${endpoint}/v1/profiles`, '{}', 'application/json');
    t.equal(signal.status, 404);
    t.match(await signal.json(), { error: 'no_route' });

    writeFileSync(join(run.workdir!, '..', 'control', 'release'), '');
    await h.waitRun((r) => r.sandbox_id === 'sb-otlp-status' && r.status === 'done');
    await jsonRefusal(await post(`${endpoint}/v1/traces`, '{}', 'application/json'), 401, 16, 'ended run');
  },
);

t.test(
  'OTLP/HTTP: a success is the empty Export*ServiceResponse in the request encoding, gzip or not',
  async (t) => {
    const h = await startSandboxCompany(t, { script: [], env: { FAKE_HOLD: '1' } });
    const run = await launchBobHolding(h, 'sb-otlp-ok', 'e');
    const environ = readFileSync(`/proc/${run.pid!}/environ`, 'utf8').split('\0');
    const endpoint = environ.find((e) => e.startsWith('OTEL_EXPORTER_OTLP_ENDPOINT='))!.split('=')[1]!;
    for (const signal of ['traces', 'metrics', 'logs'] as const) {
      for (const gzip of [false, true]) {
        const what = `${signal}${gzip ? ', gzip' : ''}`;
        const raw = protoExport(signal, 2);
        const headers: Record<string, string> = gzip ? { 'content-encoding': 'gzip' } : {};
        const proto = await post(`${endpoint}/v1/${signal}`, gzip ? gzipSync(raw) : raw, protoType, headers);
        t.equal(proto.status, 200, `protobuf ${what}: 200`);
        t.equal(proto.headers.get('content-type'), protoType, `protobuf ${what}: protobuf`);
        t.equal((await proto.arrayBuffer()).byteLength, 0, `protobuf ${what}: no partial_success`);
        const empty = gzip ? gzipSync('{}') : '{}';
        const json = await post(`${endpoint}/v1/${signal}`, empty, 'application/json', headers);
        t.equal(json.status, 200, `JSON ${what}: 200`);
        t.same(await json.json(), {}, `JSON ${what}: an empty response`);
      }
    }
    const counted = await h.waitRun((r) => r.sandbox_id === 'sb-otlp-ok' && r.telemetry.logs === 4);
    t.same(counted.telemetry, { traces: 4, metrics: 4, logs: 4, spans: 4 });
    writeFileSync(join(run.workdir!, '..', 'control', 'release'), '');
    await h.waitRun((r) => r.sandbox_id === 'sb-otlp-ok' && r.status === 'done');
  },
);

t.test('OTLP/HTTP: metrics and logs exports are checked as deeply as trace exports', async (t) => {
  const h = await startSandboxCompany(t, { script: [], env: { FAKE_HOLD: '1' } });
  const run = await launchBobHolding(h, 'sb-otlp-deep', 'f');
  const environ = readFileSync(`/proc/${run.pid!}/environ`, 'utf8').split('\0');
  const endpoint = environ.find((e) => e.startsWith('OTEL_EXPORTER_OTLP_ENDPOINT='))!.split('=')[1]!;
  const malformed: Array<[string, string]> = [
    ['traces', '{"resourceSpans":[{"scopeSpans":[{"spans":{}}]}]}'],
    ['metrics', '{"resourceMetrics":{}}'],
    ['metrics', '{"resourceMetrics":[7]}'],
    ['metrics', '{"resourceMetrics":[{"scopeMetrics":"x"}]}'],
    ['metrics', '{"resourceMetrics":[{"scopeMetrics":[{"metrics":{}}]}]}'],
    ['logs', '{"resourceLogs":"x"}'],
    ['logs', '{"resourceLogs":[{"scopeLogs":[null]}]}'],
    ['logs', '{"resourceLogs":[{"scopeLogs":[{"logRecords":5}]}]}'],
  ];
  for (const [signal, body] of malformed) {
    const res = await post(`${endpoint}/v1/${signal}`, body, 'application/json');
    t.equal(res.status, 400, `${signal} ${body}: 400`);
    t.equal(((await res.json()) as { code?: number }).code, 3, `${signal} ${body}: INVALID_ARGUMENT`);
  }
  // A scope whose bytes are no message: the trace export's scopes are read, so are the others'.
  const badScope = Uint8Array.from(field(1, field(2, [0x0a, 0x7f])));
  for (const signal of ['traces', 'metrics', 'logs']) {
    const res = await post(`${endpoint}/v1/${signal}`, badScope, protoType);
    t.equal(res.status, 400, `protobuf ${signal} with a broken scope: 400`);
    t.equal(readStatus(new Uint8Array(await res.arrayBuffer())).code, 3);
  }
  const good: Array<[string, string]> = [
    ['metrics', '{"resourceMetrics":[{"scopeMetrics":[{"metrics":[{"name":"m"}]}]}]}'],
    [
      'logs',
      '{"resourceLogs":[{"resource":{},"scopeLogs":[{"logRecords":[{"body":{"stringValue":"x"}}]}]}]}',
    ],
  ];
  for (const [signal, body] of good)
    t.equal((await post(`${endpoint}/v1/${signal}`, body, 'application/json')).status, 200, `${signal}: 200`);
  const counted = await h.waitRun((r) => r.sandbox_id === 'sb-otlp-deep' && r.telemetry.logs === 1);
  t.same(counted.telemetry, { traces: 0, metrics: 1, logs: 1, spans: 0 }, 'only the well-formed counted');
  writeFileSync(join(run.workdir!, '..', 'control', 'release'), '');
  await h.waitRun((r) => r.sandbox_id === 'sb-otlp-deep' && r.status === 'done');
});
