/**
 * `svc_webhook_arrivals_total` and `svc_webhook_refusals_total` count deliveries (ops/metrics.md): POSTs to
 * `/webhooks/…`. The browser landings under the same prefix (GET) are requests, not deliveries.
 */
import t from 'tap';
import { createNodeMetrics } from '../../scripts/metrics-wiring.js';

const sample = (text: string, name: string): string[] =>
  text.split('\n').filter((l) => l.startsWith(`${name}{`));

t.test('webhook counters count POST deliveries, not the GET landings under /webhooks/', async (t) => {
  const metrics = createNodeMetrics({ nodeId: 'n1' });
  const answered = (method: string, route: string, status: number): void =>
    metrics.requests.answered({ method, route, status, seconds: 0.001 });
  answered('POST', '/webhooks/tracker-b', 200);
  answered('POST', '/webhooks/tracker-b', 401);
  answered('GET', '/webhooks/chat-oauth', 200);
  answered('GET', '/webhooks/codehost-a-app', 302);
  answered('GET', '/webhooks/tracker-b', 405);
  const text = (await metrics.render()).text;
  t.same(sample(text, 'svc_webhook_arrivals_total'), [
    'svc_webhook_arrivals_total{route="/webhooks/tracker-b",node="n1"} 1',
  ]);
  t.same(sample(text, 'svc_webhook_refusals_total'), [
    'svc_webhook_refusals_total{route="/webhooks/tracker-b",status="401",node="n1"} 1',
  ]);
  t.match(text, /svc_http_requests_total\{[^}]*route="\/webhooks\/chat-oauth"/, 'still a request');
});
