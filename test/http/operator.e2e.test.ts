import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import t from 'tap';
import { CI, OPS, openAuth } from './fixtures/gateway-harness.js';
import { jsonRpcCases } from './fixtures/jsonrpc-cases.js';
import { startPagesNode } from './fixtures/pages-node.js';

type Json = Record<string, unknown>;
const token = (header: string) => header.replace(/^Bearer /, '');

async function connect(base: string, bearer: string): Promise<Client> {
  const client = new Client({ name: 'operator-test', version: '1' });
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/operator/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token(bearer)}` } },
  });
  await client.connect(transport);
  return client;
}

t.test('an MCP client lists the tools and creates a page as the bound person', async (t) => {
  const n = await startPagesNode(t);
  const client = await connect(n.base, OPS);
  t.teardown(() => client.close());
  const { tools } = await client.listTools();
  t.same(tools.map((tool) => tool.name).sort(), [
    'pages_comment',
    'pages_containers',
    'pages_read',
    'pages_search',
    'pages_write',
  ]);
  const write = tools.find((tool) => tool.name === 'pages_write')!;
  t.equal(write.inputSchema.type, 'object');
  t.equal(write.annotations?.readOnlyHint, false);
  // Without an op_id each call gets a fresh one, so a repeat writes again.
  for (const name of ['pages_write', 'pages_comment'])
    t.equal(
      tools.find((tool) => tool.name === name)?.annotations?.idempotentHint,
      false,
      `${name} is no idempotent call`,
    );
  t.equal(tools.find((tool) => tool.name === 'pages_read')?.annotations?.idempotentHint, true);
  const result = await client.callTool({
    name: 'pages_write',
    arguments: { container: 'ENG', title: 'From the assistant', body: 'hello' },
  });
  t.notOk(result.isError, JSON.stringify(result.content));
  const page = await n.call('GET', '/pages/ENG/From%20the%20assistant');
  t.equal(page.status, 200);
  t.same(page.json['created_by'], { kind: 'person', id: 'ada-ops', name: 'Ada Ops' });
  const found = await client.callTool({ name: 'pages_search', arguments: { q: 'assistant' } });
  t.match(JSON.stringify(found.content), /From the assistant/);
  const refused = await client.callTool({
    name: 'pages_write',
    arguments: { container: 'NOPE', title: 'x' },
  });
  t.equal(refused.isError, true);
  t.match(JSON.stringify(refused.content), /no_container/);
});

t.test('/operator/act/{tool} runs one write tool as the bound person', async (t) => {
  const n = await startPagesNode(t);
  const made = await n.call('POST', '/operator/act/pages_write', {
    body: { container: 'HANDBOOK', title: 'Policies', op_id: 'act-1' },
  });
  t.equal(made.status, 200, JSON.stringify(made.json));
  t.same(made.json['acted_as'], { kind: 'person', id: 'ada-ops', name: 'Ada Ops' });
  const again = await n.call('POST', '/operator/act/pages_write', {
    body: { container: 'HANDBOOK', title: 'Policies', op_id: 'act-1' },
  });
  t.equal((again.json['result'] as Json)['repeated'], true, 'a retry by op_id acts once');
  const comment = await n.call('POST', '/operator/act/pages_comment', {
    body: { page: 'HANDBOOK/policies', body: 'Reviewed' },
  });
  t.equal(comment.status, 200);
  const clash = await n.call('POST', '/operator/act/pages_write', {
    body: { container: 'HANDBOOK', title: 'POLICIES' },
  });
  t.equal(clash.status, 409);
  t.equal(clash.json['error'], 'page_title_taken');
  const read = await n.call('POST', '/operator/act/pages_read', { body: { page: 'HANDBOOK/Policies' } });
  t.equal(read.status, 404, 'reads are not acts');
  t.equal(read.json['error'], 'unknown_tool');
  const bad = await n.call('POST', '/operator/act/pages_write', {
    body: { container: 'HANDBOOK', titel: 'x' },
  });
  t.equal(bad.status, 400);
  t.equal(bad.json['error'], 'invalid_body');
  const badOp = await n.call('POST', '/operator/act/pages_write', {
    body: { container: 'HANDBOOK', title: 'x', op_id: 'a b' },
  });
  t.equal(badOp.json['error'], 'op_id_invalid');
});

t.test('an unbound token, no token, and a disabled guard are refused', async (t) => {
  const n = await startPagesNode(t);
  const unbound = await n.call('POST', '/operator/act/pages_write', {
    body: { container: 'ENG', title: 'x' },
    auth: CI,
  });
  t.equal(unbound.status, 403);
  t.equal(unbound.json['error'], 'unbound_token');
  const mcpUnbound = await n.call('POST', '/operator/mcp', {
    body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    auth: CI,
  });
  t.equal(mcpUnbound.status, 403);
  t.equal(mcpUnbound.json['error'], 'unbound_token');
  const none = await n.call('GET', '/operator/mcp', { auth: null });
  t.equal(none.status, 401, 'always guarded, reads included');
  t.equal(none.json['error'], 'invalid_token');
  const get = await n.call('GET', '/operator/mcp');
  t.equal(get.status, 405, 'no server-initiated stream');
  t.equal(get.headers.get('allow'), 'POST, DELETE');
  await t.rejects(connect(n.base, CI), 'the SDK client cannot connect with an unbound token');

  const open = await startPagesNode(t, { auth: { ...openAuth, disabled: true } });
  const anon = await open.call('POST', '/operator/act/pages_write', {
    body: { container: 'ENG', title: 'x' },
    auth: null,
  });
  t.equal(anon.status, 403);
  t.equal(anon.json['error'], 'guard_disabled');
});

t.test('/viewer reports the acts a bound token has, and none for an unbound one', async (t) => {
  const n = await startPagesNode(t);
  const bound = await n.call('GET', '/viewer');
  t.same(bound.json['acts'], ['pages_write', 'pages_comment']);
  t.same((bound.json['seat'] as Json)['handle'], 'ada-ops');
  const unbound = await n.call('GET', '/viewer', { auth: CI });
  t.same(unbound.json['acts'], []);
});

t.test('/operator/mcp answers each JSON-RPC error with its code', async (t) => {
  const n = await startPagesNode(t);
  const post = (body: string) =>
    fetch(`${n.base}/operator/mcp`, {
      method: 'POST',
      headers: {
        authorization: OPS,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body,
    });
  await jsonRpcCases(t, post, { name: 'pages_search', args: { q: 'x' } });
});

t.test(
  'an op_id outside the grammar is refused over MCP as op_id_invalid, saying which rule it breaks, as over /operator/act',
  async (t) => {
    const n = await startPagesNode(t);
    const client = await connect(n.base, OPS);
    t.teardown(() => client.close());
    const cases: Array<[unknown, RegExp]> = [
      ['a b', /a space at byte 2/],
      ['x'.repeat(129), /is 129 bytes; at most 128/],
      ['é', /U\+00E9 at byte 1/],
      [5, /op_id is a number; it must be a string/],
    ];
    for (const [opId, why] of cases) {
      const refused = await client.callTool({
        name: 'pages_write',
        arguments: { container: 'HANDBOOK', title: 'Retry', op_id: opId },
      });
      t.equal(refused.isError, true);
      const [first] = refused.content as Array<{ text: string }>;
      t.match(first?.text, /^op_id_invalid: /, `op_id ${JSON.stringify(opId).slice(0, 20)}`);
      t.match(first?.text, why, `op_id ${JSON.stringify(opId).slice(0, 20)}: the rule it breaks`);
    }
    const listed = await n.call('GET', '/pages?container=HANDBOOK');
    t.notMatch(JSON.stringify(listed.json), /Retry/, 'nothing was written');
  },
);

t.test('an unknown tool name is quoted cut short, over MCP and over /operator/act', async (t) => {
  const n = await startPagesNode(t);
  const name = 'x'.repeat(4000);
  const client = await connect(n.base, OPS);
  t.teardown(() => client.close());
  const called = await client.callTool({ name, arguments: {} });
  t.equal(called.isError, true);
  const [first] = called.content as Array<{ text: string }>;
  t.match(first?.text, /^unknown_tool: /);
  t.ok((first?.text.length ?? 0) < 300, `the refusal is ${first?.text.length} characters long`);
  const acted = await n.call('POST', `/operator/act/${name}`, { body: {} });
  t.equal(acted.status, 404);
  t.equal(acted.json['error'], 'unknown_tool');
  t.ok(String(acted.json['detail']).length < 300, 'the detail does not echo the whole name');
});

t.test(
  "/operator/mcp: MCP's header refusals come first — 406 when the client does not accept both types, 415 when the body is not declared JSON — whatever the message holds",
  async (t) => {
    const n = await startPagesNode(t);
    const post = (headers: Record<string, string>, body: string) =>
      fetch(`${n.base}/operator/mcp`, { method: 'POST', headers: { authorization: OPS, ...headers }, body });
    const bodies: Array<[string, string]> = [
      ['a request', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' })],
      ['JSON but no JSON-RPC', '{}'],
      ['an empty batch', '[]'],
      ['a batch of one invalid message', '[{}]'],
      ['a request with bad params', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call' })],
    ];
    for (const [label, body] of bodies) {
      const notAcceptable = await post(
        { 'content-type': 'application/json', accept: 'application/json' },
        body,
      );
      t.equal(notAcceptable.status, 406, `${label}, Accept without text/event-stream: 406`);
      t.match(await notAcceptable.json(), {
        jsonrpc: '2.0',
        error: { code: -32000, message: /^Not Acceptable/ },
      });
      const unsupported = await post(
        { 'content-type': 'text/plain', accept: 'application/json, text/event-stream' },
        body,
      );
      t.equal(unsupported.status, 415, `${label}, Content-Type text/plain: 415`);
      t.match(await unsupported.json(), {
        jsonrpc: '2.0',
        error: { code: -32000, message: /^Unsupported Media Type/ },
      });
    }
  },
);
