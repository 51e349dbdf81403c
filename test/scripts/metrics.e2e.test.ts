/**
 * `GET /metrics` on a real `svc serve` (ops/metrics.md): guarded like `/fleet`, the Prometheus text format,
 * and counters that move with what the node does — requests by route and status, webhook arrivals and
 * refusals, a turn and its tokens by seat and model, bus publishes, projection lag, spans the tracing SDK
 * dropped.
 */
import { createHmac } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { startLlmServer } from '../fixtures/llm/llm-server.js';
import { startNode, TOKEN } from '../harness/serve-node.js';
import { localProviders } from '../fixtures/llm/providers.js';
import { until } from '../harness/until.js';
import { triageTurn } from './fixtures/triage-turn.js';

const SECRET = 'codehost-a-metrics-secret-0123';

interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** The exposition text's samples (comments skipped); fails the test on a line that is neither. */
function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (m === null) throw new Error(`not an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      labels[l[1]!] = l[2]!;
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return samples;
}

/** The sum of a metric's samples whose labels include `labels`. */
function total(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((n, s) => n + s.value, 0);
}

t.test(
  'GET /metrics is guarded, speaks the Prometheus text format, and its counters move with requests, ' +
    'webhooks and turns',
  async (t) => {
    const llm = await startLlmServer({ wire: 'openai', script: triageTurn });
    t.teardown(() => llm.close());
    const node = await startNode(t);
    const auth = { authorization: `Bearer ${TOKEN}` };
    const scrape = async (): Promise<Sample[]> => {
      const res = await fetch(`${node.url}/metrics`, { headers: auth });
      t.equal(res.status, 200);
      t.match(res.headers.get('content-type'), /^text\/plain; version=0\.0\.4/);
      return parseExposition(await res.text());
    };

    const anonymous = await fetch(`${node.url}/metrics`);
    t.equal(anonymous.status, 401, 'a token is needed, as for /fleet');
    const before = await scrape();
    t.equal(total(before, 'svc_webhook_arrivals_total'), 0);
    t.ok(total(before, 'process_cpu_user_seconds_total') > 0, 'the process metrics are there too');

    const company = {
      name: 'Acme',
      timezone: 'UTC',
      providers: localProviders(llm.baseUrl),
      integrations: { codehost_a: { webhook_secret: SECRET } },
      roles: [{ name: 'Ada' }, { name: 'Cy' }],
    };
    const put = await fetch(`${node.url}/config`, {
      method: 'PUT',
      headers: { ...auth, 'content-type': 'application/json', 'x-summary': 'metrics' },
      body: JSON.stringify(company),
    });
    t.equal(put.status, 201, 'the company is applied');
    await node.run.waitForLog((l) => l.msg === 'config applied');

    const body = JSON.stringify({
      action: 'assigned',
      sender: { login: 'someone' },
      issue: { number: 7, title: 'Bug', assignees: [{ login: 'cy' }] },
    });
    const signed = (id: string, signature?: string) => ({
      'content-type': 'application/json',
      'x-codehost-a-event': 'issues',
      'x-codehost-a-delivery': id,
      'x-codehost-a-signature-256':
        signature ?? `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`,
    });
    const post = (headers: Record<string, string>) =>
      fetch(`${node.url}/webhooks/codehost-a`, { method: 'POST', headers, body });
    t.equal((await post(signed('d-1', `sha256=${'0'.repeat(64)}`))).status, 401);
    t.equal((await post(signed('d-1'))).status, 200);
    await node.run.waitForLog((l) => l.msg === 'turn completed');

    const after = await scrape();
    const route = '/webhooks/codehost-a';
    t.equal(total(after, 'svc_webhook_arrivals_total', { route }), 1, 'the accepted delivery');
    t.equal(total(after, 'svc_webhook_refusals_total', { route, status: '401' }), 1, 'the bad signature');
    t.equal(
      total(after, 'svc_http_requests_total', { method: 'PUT', route: '/config', status: '201' }),
      1,
      'requests by route pattern and status',
    );
    t.equal(
      total(after, 'svc_http_request_duration_seconds_count', { method: 'PUT', route: '/config' }),
      1,
      'and their latency histogram',
    );
    t.equal(
      total(after, 'svc_http_requests_total', { route: '/metrics', status: '200' }),
      1,
      'the first scrape is counted by the second',
    );
    t.equal(total(after, 'svc_turns_total', { seat: 'cy', outcome: 'completed' }), 1, 'one turn for cy');
    t.equal(total(after, 'svc_turns_total', { seat: 'ada' }), 0, 'none for ada');
    t.equal(
      total(after, 'svc_tokens_total', { seat: 'cy', model: 'local-1', kind: 'input' }),
      100 + 150 + 90,
      'input tokens by seat and model',
    );
    t.equal(
      total(after, 'svc_tokens_total', { seat: 'cy', model: 'local-1', kind: 'output' }),
      20 + 5 + 8,
      'output tokens by seat and model',
    );
    t.equal(total(after, 'svc_model_calls_total', { seat: 'cy', model: 'local-1' }), 3);
    t.ok(
      total(after, 'svc_bus_publish_seconds_count', { subject: 'svc.events', outcome: 'ok' }) >
        total(before, 'svc_bus_publish_seconds_count', { subject: 'svc.events', outcome: 'ok' }),
      'bus publishes are timed to their acknowledgement',
    );
    const lag = after.filter((s) => s.name === 'svc_projection_lag_messages');
    t.ok(
      lag.some((s) => s.labels['stream'] === 'SVC_EVENTS'),
      'the lag of the projections on SVC_EVENTS is reported',
    );
    t.ok(
      lag.every((s) => s.value >= 0),
      'lag is never negative',
    );
    t.ok(
      after.every((s) => s.labels['node'] !== undefined),
      'every sample names its node',
    );
  },
);

t.test(
  'spans the tracing SDK drops from its full export queue are counted: svc_tracing_spans_dropped_total',
  async (t) => {
    // A collector that reads every export and never answers: a held batch holds the exporter, the queue
    // behind it fills (2048 spans) and every span past it is dropped. The exporter's own timeout is set past
    // the test, but the batch processor still lets the next batch out after 30 s, which a loaded machine can
    // reach: so the spans the collector took are counted, not assumed (JSON), and requests are sent until
    // drops show rather than a fixed number that a slow run exports in full.
    const held: ServerResponse[] = [];
    let taken = 0;
    let read = 0;
    const collector = createServer((req, res) => {
      held.push(res);
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          resourceSpans?: Array<{ scopeSpans?: Array<{ spans?: unknown[] }> }>;
        };
        for (const r of body.resourceSpans ?? [])
          for (const s of r.scopeSpans ?? []) taken += s.spans?.length ?? 0;
        read += 1;
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    t.teardown(
      () =>
        new Promise<void>((resolve) => {
          collector.closeAllConnections();
          collector.close(() => resolve());
        }),
    );
    const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
    const node = await startNode(t, '', 'memory', {
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_TIMEOUT: '600000',
    });
    const auth = { authorization: `Bearer ${TOKEN}` };
    // Every answered request is one span (an unconfigured node makes no other): the scrapes count too.
    let made = 0;
    const dropped = async (): Promise<number> => {
      const text = await (await fetch(`${node.url}/metrics`, { headers: auth })).text();
      made += 1;
      return total(parseExposition(text), 'svc_tracing_spans_dropped_total');
    };
    t.equal(await dropped(), 0, 'exposed from the start, at 0');
    // 3,000 requests pass the batch held and the 2,048 queued; more rounds only when batches were let out.
    const round = async (requests: number): Promise<void> => {
      let next = 0;
      const worker = async (): Promise<void> => {
        while (next < requests) {
          next += 1;
          await (await fetch(`${node.url}/health`)).arrayBuffer();
          made += 1;
        }
      };
      await Promise.all(Array.from({ length: 16 }, worker));
    };
    await round(3_000);
    for (let rounds = 0; rounds < 10 && (await dropped()) === 0; rounds += 1) await round(1_000);
    t.ok(held.length >= 1, 'the collector holds an export');
    // Every span is queued (at most 2048), exported or dropped: once the collector has read each batch it
    // holds, the count is at least the spans made past the other two, and never more than were made.
    const seen = await until(
      async () => ({ dropped: await dropped(), made: made - 1, taken, read, held: held.length }),
      (s) => s.read === s.held && s.dropped >= s.made - s.taken - 2048,
      30_000,
    );
    t.ok(seen.dropped > 0, `spans were dropped (${JSON.stringify(seen)})`);
    t.ok(seen.dropped <= made, `no more than were made (${JSON.stringify(seen)})`);
  },
);
