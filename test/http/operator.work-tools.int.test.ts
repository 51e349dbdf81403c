/**
 * The work tracker's tools on the operator surface, over a real tracker (memory bus, work host,
 * projection) behind a real gateway: an `op_id` sent over `/operator/mcp` is the write's retry handle,
 * and a refusal keeps its code (and a `validation_error` its `problems`) on both routes.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import t, { type Test } from 'tap';
import { builtinAsServiceTool, workTools, type WorkAccess } from '../../actors/index.js';
import { sendCommand } from '../../bus/index.js';
import { Commands } from '../../schema/index.js';
import { operatorSurface } from '../../scripts/operator-wiring.js';
import { call, OPS, openAuth, startHarness } from './fixtures/gateway-harness.js';
import { company, startWorkHarness, type WorkHarness } from './fixtures/work-harness.js';

type Json = Record<string, unknown>;

/** The tracker's tools served as the operator surface, and an MCP client on it as the `ops` token. */
async function surface(t: Test) {
  const w = await startWorkHarness(t);
  const access: WorkAccess = {
    state: () => w.view.state(),
    write: (x) => sendCommand(w.bus, Commands.work.write, x),
    until: (seq, ms) => w.view.until(seq, ms),
  };
  const op = operatorSurface({
    tools: workTools({ work: () => access }).map(builtinAsServiceTool),
    auth: openAuth,
    chart: () => ({ document: company, epoch: 1 }),
    resolve: () => undefined,
  });
  const h = await startHarness({ auth: openAuth, routes: op.routes });
  t.teardown(() => h.gw.close());
  const client = new Client({ name: 'operator-work-tools-test', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${h.base}/operator/mcp`), {
      requestInit: { headers: { authorization: OPS } },
    }),
  );
  t.teardown(() => client.close());
  return { w, base: h.base, client };
}

const items = async (w: WorkHarness) => (await call(`${w.base}/work`)).json?.['items'] as Json[];

t.test('over /operator/mcp a work write sent twice with one op_id makes one item', async (t) => {
  const { w, client } = await surface(t);
  const { tools } = await client.listTools();
  const create = tools.find((tool) => tool.name === 'work_create');
  t.match(create?.inputSchema.properties, { op_id: { type: 'string' } }, 'op_id is advertised');
  const args = { project: 'ENG', title: 'Once only', op_id: 'mcp-retry-1' };
  const first = await client.callTool({ name: 'work_create', arguments: args });
  t.notOk(first.isError, JSON.stringify(first.content));
  const again = await client.callTool({ name: 'work_create', arguments: args });
  t.notOk(again.isError, JSON.stringify(again.content));
  t.match(again.structuredContent, { result: { key: 'ENG-1' } }, 'the retry answers the first outcome');
  t.same(
    (await items(w)).map((i) => i['key']),
    ['ENG-1'],
    'one item',
  );
  const bad = await client.callTool({ name: 'work_create', arguments: { ...args, op_id: 'é' } });
  t.equal(bad.isError, true, 'an op_id outside the grammar is refused');
});

t.test(
  'work refusals keep their code over /operator/mcp and their problems over /operator/act',
  async (t) => {
    const { base, client } = await surface(t);
    const missing = await client.callTool({ name: 'work_get', arguments: { item: 'ENG-9' } });
    t.equal(missing.isError, true);
    t.match((missing.content as Array<{ text: string }>)[0]?.text, /^not_found: /, 'not bad_params');

    const act = (tool: string, body: Json) =>
      call(`${base}/operator/act/${tool}`, {
        method: 'POST',
        headers: { authorization: OPS, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    t.equal((await act('work_create', { project: 'ENG', title: 'Move me' })).status, 200);
    t.equal((await act('work_move', { item: 'ENG-1', to: 'in_progress' })).status, 200);
    const back = await act('work_move', { item: 'ENG-1', to: 'backlog' });
    t.equal(back.status, 400);
    t.match(back.json, {
      error: 'validation_error',
      problems: [{ path: 'to', segments: ['to'], kind: 'invalid', message: /from in_progress/ }],
    });
    const gone = await act('work_comment', { item: 'ENG-9', body: 'hello' });
    t.equal(gone.status, 404);
    t.equal(gone.json?.error, 'not_found');
  },
);

t.test('over /operator/mcp work_list pages as GET /work does, its cursor the route', async (t) => {
  const { w, client } = await surface(t);
  const { tools } = await client.listTools();
  const list = tools.find((tool) => tool.name === 'work_list');
  t.match(list?.inputSchema.properties, { cursor: { type: 'string' } }, 'cursor is advertised');
  t.match(list?.description, /pass it back as `cursor`/, 'the description says how to page');
  for (const title of ['One', 'Two', 'Three'])
    t.notOk((await client.callTool({ name: 'work_create', arguments: { project: 'ENG', title } })).isError);
  const first = await client.callTool({ name: 'work_list', arguments: { project: 'ENG', limit: 2 } });
  t.notOk(first.isError, JSON.stringify(first.content));
  const page = (first.structuredContent as { result: { items: Json[]; total: number; next: string } }).result;
  t.match(page, { items: [{ key: 'ENG-3' }, { key: 'ENG-2' }], total: 3 });
  const onward = await call(`${w.base}/work?project=ENG&limit=2&cursor=${encodeURIComponent(page.next)}`);
  t.same(
    (onward.json?.['items'] as Json[]).map((i) => i['key']),
    ['ENG-1'],
    "the tool's cursor reads on in the route",
  );
  const routeNext = (await call(`${w.base}/work?project=ENG&limit=1`)).json?.['next'] as string;
  const fromRoute = await client.callTool({
    name: 'work_list',
    arguments: { project: 'ENG', limit: 1, cursor: routeNext },
  });
  t.match(
    fromRoute.structuredContent,
    { result: { items: [{ key: 'ENG-2' }] } },
    'and the route’s in the tool',
  );
  const foreign = await client.callTool({
    name: 'work_list',
    arguments: { project: 'OPS', cursor: routeNext },
  });
  t.equal(foreign.isError, true);
  t.match((foreign.content as Array<{ text: string }>)[0]?.text, /^bad_params: `cursor`/);
});

t.test(
  'work_update refuses null for title, type, status and project by name on both routes, as PATCH /work/{id} does',
  async (t) => {
    const { w, base, client } = await surface(t);
    const headers = { authorization: OPS, 'content-type': 'application/json' };
    const act = (body: Json) =>
      call(`${base}/operator/act/work_update`, { method: 'POST', headers, body: JSON.stringify(body) });
    t.equal((await act({ item: 'ENG-1' })).status, 404, 'no item yet');
    const made = await call(`${base}/operator/act/work_create`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ project: 'ENG', title: 'Keep me' }),
    });
    t.equal(made.status, 200, made.text);
    const patch = await call(`${w.base}/work/ENG-1`, {
      method: 'PATCH',
      headers,
      body: JSON.stringify({ title: null }),
    });
    for (const [name, hint] of [
      ['title', /send a new title/],
      ['type', /type/],
      ['status', /work_move/],
      ['project', /project it was created in/],
    ] as const) {
      const byAct = await act({ item: 'ENG-1', [name]: null, description: 'changed' });
      t.equal(byAct.status, 400, `${name}: ${byAct.text}`);
      t.match(
        byAct.json,
        {
          error: 'validation_error',
          detail: new RegExp(`^${name} cannot be removed[\\s\\S]*${hint.source}`),
          problems: [{ path: name, segments: [name], kind: 'invalid' }],
        },
        `${name}: named over /operator/act, with what to do instead`,
      );
      const byMcp = await client.callTool({
        name: 'work_update',
        arguments: { item: 'ENG-1', [name]: null },
      });
      t.equal(byMcp.isError, true, name);
      const text = (byMcp.content as Array<{ text: string }>)[0]?.text ?? '';
      t.match(text, new RegExp(`^validation_error: ${name} cannot be removed`), `${name} over MCP`);
      t.match(text, new RegExp(`problems: \\[\\{"path":"${name}"`), `${name}: its problems over MCP`);
    }
    t.equal(patch.status, 400, 'PATCH refuses it too');
    t.match(patch.json, { error: 'validation_error', problems: [{ path: 'title' }] });
    const badRest = await act({ item: 'ENG-1', title: null, priority: 'urgent-ish' });
    t.equal(badRest.status, 400);
    t.match(
      badRest.json,
      { error: 'invalid_body', problems: [{ path: 'priority' }] },
      'the rest of the arguments is checked first',
    );
    const item = (await call(`${w.base}/work/ENG-1`)).json;
    t.match(item, { title: 'Keep me', description: '' }, 'nothing refused was recorded');
  },
);
