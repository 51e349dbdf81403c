/**
 * The operator surface on real `svc serve` nodes by which native backends run (ops/operator.md): each backend
 * brings its own tools to `/operator/mcp` and its writes to `/operator/act` and `/viewer`'s `acts`, and a
 * node running neither serves no `/operator/*` route at all (404 `no_route`, a token notwithstanding).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import t, { type Test } from 'tap';
import { nativeWorkCompany } from '../harness/native-work.js';
import { startNode, TOKEN, type ServedNode } from '../harness/serve-node.js';
import { until } from '../harness/until.js';

type Json = Record<string, unknown>;
const auth = { authorization: `Bearer ${TOKEN}` };

async function send(node: ServedNode, method: string, path: string, body?: Json) {
  const r = await fetch(`${node.url}${path}`, {
    method,
    headers: {
      ...auth,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'x-summary': 'operator backends',
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await r.text();
  return { status: r.status, json: (text === '' ? {} : JSON.parse(text)) as Json };
}

/** Stores the company (Ada bound to the `ops` token) and waits until the node acts as her. */
async function bound(t: Test, node: ServedNode): Promise<void> {
  const put = await send(node, 'PUT', '/config', nativeWorkCompany());
  t.equal(put.status, 201, JSON.stringify(put.json));
  await until(
    () => send(node, 'GET', '/viewer'),
    (v) => (v.json['seat'] as Json | null)?.['handle'] === 'ada',
  );
}

async function toolNames(t: Test, node: ServedNode): Promise<string[]> {
  const client = new Client({ name: 'operator-backends-test', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${node.url}/operator/mcp`), {
      requestInit: { headers: auth },
    }),
  );
  t.teardown(() => client.close());
  return (await client.listTools()).tools.map((tool) => tool.name).sort();
}

t.test('a node running only the native tracker serves the work tools alone', async (t) => {
  const node = await startNode(t, 'tracker: {backend: native}');
  await bound(t, node);
  t.same(await toolNames(t, node), [
    'work_comment',
    'work_create',
    'work_get',
    'work_list',
    'work_move',
    'work_update',
  ]);
  t.same((await send(node, 'GET', '/viewer')).json['acts'], [
    'work_create',
    'work_update',
    'work_comment',
    'work_move',
  ]);
  const pages = await send(node, 'POST', '/operator/act/pages_write', { container: 'ENG', title: 'x' });
  t.same([pages.status, pages.json['error']], [404, 'unknown_tool'], 'no knowledge base, no page tool');
});

t.test('a node running only the native knowledge base serves the page tools alone', async (t) => {
  const node = await startNode(t, 'knowledge: {backend: native}');
  await bound(t, node);
  t.same(await toolNames(t, node), [
    'pages_comment',
    'pages_containers',
    'pages_read',
    'pages_search',
    'pages_write',
  ]);
  t.same((await send(node, 'GET', '/viewer')).json['acts'], ['pages_write', 'pages_comment']);
  const work = await send(node, 'POST', '/operator/act/work_create', { project: 'ENG', title: 'x' });
  t.same([work.status, work.json['error']], [404, 'unknown_tool'], 'no tracker, no work tool');
});

t.test(
  'a node running neither native backend has no /operator/* route, a bound token notwithstanding',
  async (t) => {
    const node = await startNode(t);
    await bound(t, node);
    t.same((await send(node, 'GET', '/viewer')).json['acts'], []);
    for (const [method, path, body] of [
      ['POST', '/operator/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/list' }],
      ['GET', '/operator/mcp', undefined],
      ['DELETE', '/operator/mcp', undefined],
      ['POST', '/operator/act/work_create', { project: 'ENG', title: 'x' }],
    ] as const) {
      const r = await send(node, method, path, body);
      t.same([r.status, r.json['error']], [404, 'no_route'], `${method} ${path}`);
    }
  },
);
