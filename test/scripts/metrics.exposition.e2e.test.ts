/**
 * `GET /metrics` is valid Prometheus text format (0.0.4) as a strict reader takes it, after requests of
 * every kind (probes, unmatched paths, refusals, webhooks, a socket handshake): each family has its HELP and
 * TYPE once, before its samples, which stay together; no series twice; histograms cumulative with `+Inf`
 * equal to `_count`; no label value quoting the path a client chose.
 */
import t from 'tap';
import { startNode, TOKEN } from '../harness/serve-node.js';
import { strictExposition } from './fixtures/strict-exposition.js';

t.test('GET /metrics reads as strict Prometheus text format, families declared once', async (t) => {
  const node = await startNode(t);
  const auth = { authorization: `Bearer ${TOKEN}` };
  const tries: [string, string, Record<string, string>?][] = [
    ['GET', '/health'],
    ['GET', '/ready'],
    ['GET', '/agents/secret-agent-xyz', auth],
    ['GET', '/nope/user-chosen-path'],
    ['GET', '/metrics'],
    ['POST', '/webhooks/codehost-a', { 'content-type': 'application/json' }],
    ['POST', '/otlp/user-chosen-token/v1/traces', { 'content-type': 'application/json' }],
    ['GET', '/ws/stream', auth],
    ['HEAD', '/health'],
    ['OPTIONS', '/agents'],
  ];
  for (const [method, path, headers] of tries) {
    const res = await fetch(`${node.url}${path}`, {
      method,
      headers,
      ...(method === 'POST' ? { body: '{}' } : {}),
    });
    await res.arrayBuffer();
  }
  const text = await (await fetch(`${node.url}/metrics`, { headers: auth })).text();
  const { problems, types } = strictExposition(text);
  t.same(problems, [], 'no format problems');
  for (const [name, type] of [
    ['svc_http_requests_total', 'counter'],
    ['svc_http_request_duration_seconds', 'histogram'],
    ['svc_webhook_arrivals_total', 'counter'],
    ['svc_webhook_refusals_total', 'counter'],
    ['svc_bus_publish_seconds', 'histogram'],
    ['svc_projection_lag_messages', 'gauge'],
    ['svc_turns_total', 'counter'],
    ['svc_model_calls_total', 'counter'],
    ['svc_tokens_total', 'counter'],
    ['svc_tracing_spans_dropped_total', 'counter'],
  ] as const)
    t.equal(types.get(name), type, `${name} is a ${type}`);
  for (const secret of ['secret-agent-xyz', 'user-chosen-path', 'user-chosen-token'])
    t.notOk(text.includes(secret), `no label quotes ${secret}`);
});
