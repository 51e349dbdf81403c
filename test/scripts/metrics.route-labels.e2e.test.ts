/**
 * `svc_http_requests_total` labels a request by the route pattern whenever the path is one the node serves
 * (ops/metrics.md): a 405 (the path matched, the method did not) counts under that pattern, as does the 401
 * the guard answers there first, and as the probes' own 405 counts under `/health`; only a path no route
 * serves counts as `unmatched`. A 405 on a `/webhooks/` path is no refused delivery: that route takes no
 * POST. Scraped from a built `svc serve`.
 */
import t from 'tap';
import { startNode, TOKEN } from '../harness/serve-node.js';

const auth = { authorization: `Bearer ${TOKEN}` };

t.test('a method not allowed on a served path counts under its route pattern, not unmatched', async (t) => {
  const node = await startNode(t);
  const tries: [method: string, path: string, headers: Record<string, string>, status: number][] = [
    ['DELETE', '/agents/some-seat', auth, 405],
    ['DELETE', '/agents/some-seat', {}, 401],
    ['POST', '/dashboard', {}, 405],
    ['PATCH', '/health', {}, 405],
    ['POST', '/webhooks/chat-oauth', {}, 405],
    ['GET', '/nowhere/at-all', auth, 404],
  ];
  for (const [method, path, headers, status] of tries) {
    const res = await fetch(`${node.url}${path}`, { method, headers });
    await res.arrayBuffer();
    t.equal(res.status, status, `${method} ${path} answers ${status}`);
  }
  const text = await (await fetch(`${node.url}/metrics`, { headers: auth })).text();
  const count = (method: string, route: string, status: number): number => {
    const prefix = `svc_http_requests_total{method="${method}",route="${route}",status="${status}"`;
    const line = text.split('\n').find((l) => l.startsWith(prefix));
    return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
  };
  t.equal(count('DELETE', '/agents/:id', 405), 1, 'the 405 under /agents/:id');
  t.equal(count('DELETE', '/agents/:id', 401), 1, 'the guard refusal there under /agents/:id');
  t.equal(count('POST', '/dashboard', 405), 1, 'the dashboard shell 405 under /dashboard');
  t.equal(count('PATCH', '/health', 405), 1, 'the probe 405 under /health');
  t.equal(count('POST', '/webhooks/chat-oauth', 405), 1, 'a POST to a browser landing under its pattern');
  t.notOk(
    text.includes('svc_webhook_refusals_total{route="/webhooks/chat-oauth"'),
    'and no refused delivery: the landing takes no deliveries',
  );
  t.equal(count('GET', 'unmatched', 404), 1, 'an unserved path under unmatched');
  for (const status of [401, 405])
    t.equal(count('DELETE', 'unmatched', status), 0, `no DELETE ${status} under unmatched`);
  t.equal(count('POST', 'unmatched', 405), 0, 'no POST 405 under unmatched');
});
