/**
 * The operator surface over the native tracker on a real `svc serve` node with both native backends: an
 * MCP client connected to `/operator/mcp` with a bound token lists the `work_*` tools next to the pages
 * ones and creates an item, and the item and its `TaskCreated` event name the bound person.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import t from 'tap';
import { applyNativeWork, nativeBackends, nativeWorkCompany } from '../harness/native-work.js';
import { startNode, TOKEN } from '../harness/serve-node.js';
import { until } from '../harness/until.js';

type Json = Record<string, unknown>;
const auth = { authorization: `Bearer ${TOKEN}` };
const get = async (url: string): Promise<Json> =>
  (await (await fetch(url, { headers: auth })).json()) as Json;

t.test('an MCP client lists the work tools and creates an item as the bound person', async (t) => {
  const node = await startNode(t, nativeBackends);
  await applyNativeWork(t, [node.url], nativeWorkCompany(), 'operator work');

  const client = new Client({ name: 'operator-work-test', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${node.url}/operator/mcp`), {
      requestInit: { headers: auth },
    }),
  );
  t.teardown(() => client.close());
  const { tools } = await client.listTools();
  const names = tools.map((tool) => tool.name);
  for (const name of ['work_create', 'work_update', 'work_comment', 'work_move', 'pages_write'])
    t.ok(names.includes(name), `${name} is listed`);
  t.equal(tools.find((tool) => tool.name === 'work_create')?.annotations?.readOnlyHint, false);

  const result = await client.callTool({
    name: 'work_create',
    arguments: { project: 'ENG', title: 'From the assistant' },
  });
  t.notOk(result.isError, JSON.stringify(result.content));
  const item = await get(`${node.url}/work/ENG-1`);
  t.equal(item['title'], 'From the assistant', JSON.stringify(item));
  t.equal(item['created_by'], 'ada', 'created by the person the token is bound to');
  const created = await until(
    () => get(`${node.url}/events?limit=400`),
    (e) => (e['rows'] as Json[] | undefined)?.some((row) => row['type'] === 'TaskCreated') === true,
  );
  const row = (created['rows'] as Json[]).find((r) => r['type'] === 'TaskCreated')!;
  t.equal(row['actor'], 'ada', 'the event names the bound person');
  const event = await get(`${node.url}/events/${String(row['id'])}`);
  t.match(event['payload'], { item: { key: 'ENG-1' }, by: 'ada' });

  const act = (tool: string, body: Json) =>
    fetch(`${node.url}/operator/act/${tool}`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const first = await act('work_create', { project: 'ENG', title: 'Once', op_id: 'op-act-1' });
  t.equal(first.status, 200);
  const reused = await act('work_comment', { item: 'ENG-2', body: 'hi', op_id: 'op-act-1' });
  t.equal(reused.status, 409, 'one op_id names one gesture across the work tools');
  t.match(await reused.json(), { error: 'op_id_reused' });
  const badArgs = await act('work_create', { project: 'ENG', title: 5, bogus: 1 });
  t.equal(badArgs.status, 400);
  t.match(await badArgs.json(), {
    error: 'invalid_body',
    problems: [{ path: 'title' }, { kind: 'unknown_field' }],
  });
});
