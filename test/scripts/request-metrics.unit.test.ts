import t from 'tap';
import { RequestMetrics } from '../../scripts/request-metrics.js';

t.test('requests are counted per method, route and status, with cumulative latency buckets', async (t) => {
  const m = new RequestMetrics([0.01, 0.1], { node: 'a' });
  m.observe('GET', '/health', 200, 0.002);
  m.observe('GET', '/health', 200, 0.05);
  m.observe('GET', '/health', 200, 3);
  m.observe('PUT', '/config', 201, 0.02);
  const text = m.render();
  const series = 'method="GET",route="/health",status="200",node="a"';
  t.match(text, `svc_http_requests_total{${series}} 3\n`);
  t.match(text, `svc_http_request_duration_seconds_bucket{${series},le="0.01"} 1\n`);
  t.match(text, `svc_http_request_duration_seconds_bucket{${series},le="0.1"} 2\n`);
  t.match(text, `svc_http_request_duration_seconds_bucket{${series},le="+Inf"} 3\n`);
  t.match(text, `svc_http_request_duration_seconds_sum{${series}} 3.052\n`);
  t.match(text, `svc_http_request_duration_seconds_count{${series}} 3\n`);
  t.match(text, 'svc_http_requests_total{method="PUT",route="/config",status="201",node="a"} 1\n');
  t.match(text, '# TYPE svc_http_requests_total counter\n');
  t.match(text, '# TYPE svc_http_request_duration_seconds histogram\n');
  t.ok(text.endsWith('\n') && !text.endsWith('\n\n'), 'one line feed closes the text');
});

t.test('a method a client makes up is counted as other: it adds no series of its own', async (t) => {
  const m = new RequestMetrics([1], {});
  for (let i = 0; i < 100; i++) m.observe(`M${i}`, 'unmatched', 405, 0);
  m.observe('get', 'unmatched', 405, 0);
  const counts = m
    .render()
    .split('\n')
    .filter((l) => l.startsWith('svc_http_requests_total{'));
  t.same(counts, ['svc_http_requests_total{method="other",route="unmatched",status="405"} 101']);
});

t.test('label values are escaped as the text format requires', async (t) => {
  const m = new RequestMetrics([1], { node: 'a"b\\c' });
  m.observe('GET', '/x\n"y"', 404, 0);
  t.match(m.render(), 'route="/x\\n\\"y\\"",status="404",node="a\\"b\\\\c"}');
});
