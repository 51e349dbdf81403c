/**
 * Spec "Authentication" 1 and 7 over time, on a real `svc serve`: an operator token taken out of
 * `api.auth.tokens` (Tier A, read at start) is refused from the first request of the node that no longer
 * lists it, while the revisions it wrote keep its id; a seat binding (`contact.operator_id`, Tier B) moved by
 * a config write moves the person a token acts as once the revision is applied, on every surface that reads
 * it, an MCP session opened before the move included.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { freePort, runSvc, type SvcChild } from '../harness/child.js';

type Json = Record<string, unknown>;

const fresh = (label: string): string => `${label}-${randomBytes(12).toString('hex')}`;

interface Node {
  readonly run: SvcChild;
  readonly url: string;
  call(
    method: string,
    path: string,
    token: string | null,
    body?: unknown,
  ): Promise<{ status: number; json: Json }>;
}

/** A node over `dir`'s store, its tokens `ops` and `ci` read from the environment given. */
async function boot(t: Test, dir: string, env: { T_OPS: string; T_CI?: string }): Promise<Node> {
  const port = await freePort();
  const file = join(dir, 'config.yaml');
  const tokens = ['{id: ops, token: "${T_OPS}"}', ...(env.T_CI ? ['{id: ci, token: "${T_CI}"}'] : [])];
  writeFileSync(
    file,
    [
      'providers: {queue: {type: memory}}',
      `api: {host: 127.0.0.1, port: ${port}, auth: {tokens: [${tokens.join(', ')}]}}`,
      `stream: {store_dir: ${join(dir, 'data')}}`,
      'tracker: {backend: native}',
      'knowledge: {backend: native}',
    ].join('\n'),
  );
  const run = runSvc(['serve', '--config', file], {
    ...env,
    SVC_SANDBOX_OTEL_RECEIVER_URL: 'http://127.0.0.1:1',
  });
  t.teardown(() => run.kill('SIGKILL'));
  await run.waitForLog((l) => l.msg === 'node serving');
  const url = `http://127.0.0.1:${port}`;
  return {
    run,
    url,
    async call(method, path, token, body) {
      const headers: Record<string, string> = { 'x-summary': 'auth rotation' };
      if (token !== null) headers['authorization'] = `Bearer ${token}`;
      if (body !== undefined) headers['content-type'] = 'application/json';
      const res = await fetch(`${url}${path}`, {
        method,
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      return { status: res.status, json: text ? (JSON.parse(text) as Json) : {} };
    },
  };
}

async function stop(node: Node): Promise<void> {
  node.run.kill('SIGTERM');
  await node.run.exited;
}

function company(boundTo: string): Json {
  return {
    name: 'Acme',
    units: [
      {
        name: 'Engineering',
        type: 'department',
        roles: [{ name: 'Ada Ops', kind: 'human', contact: { operator_id: boundTo } }],
      },
    ],
    knowledge: { wiki_spaces: ['HANDBOOK'] },
  };
}

function storeDir(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-auth-rotation-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true, maxRetries: 5 }));
  return dir;
}

t.test(
  'a token rotated or removed from api.auth.tokens is refused from the first request after the restart; its revisions keep its id',
  async (t) => {
    const dir = storeDir(t);
    const [oldOps, ci, newOps] = [fresh('ops-old'), fresh('ci'), fresh('ops-new')];
    const first = await boot(t, dir, { T_OPS: oldOps, T_CI: ci });
    const put = await first.call('PUT', '/config', ci, company('ops'));
    t.equal(put.status, 201, 'ci writes the first revision');
    const revision = String(put.json['revision_id']);
    await stop(first);

    // ops rotated to a new value, ci removed.
    const second = await boot(t, dir, { T_OPS: newOps });
    for (const [what, token] of [
      ['the rotated-out value', oldOps],
      ['the removed token', ci],
    ] as const) {
      for (const [method, path] of [
        ['GET', '/config'],
        ['GET', '/org'],
        ['PATCH', '/config'],
      ] as const) {
        const r = await second.call(method, path, token, method === 'PATCH' ? { mission: 'm' } : undefined);
        t.same([r.status, r.json['error']], [401, 'invalid_token'], `${what}: ${method} ${path}`);
      }
    }
    const read = await second.call('GET', `/config/revisions/${revision}`, newOps);
    t.equal(read.status, 200, 'the new value reads');
    t.equal(read.json['created_by'], 'ci', 'a revision keeps the id of the token that wrote it');
    const patch = await second.call('PATCH', '/config', newOps, { mission: 'rotated' });
    t.equal(patch.status, 201, 'and writes');
    const meta = await second.call('GET', `/config/revisions/${String(patch.json['revision_id'])}`, newOps);
    t.equal(meta.json['created_by'], 'ops', 'as the same id');
    const text = second.run.stdout();
    t.notOk(text.includes(oldOps) || text.includes(ci) || text.includes(newOps), 'no value in the log');
  },
);

t.test(
  'a seat binding moved by a config write moves who a token acts as on every surface, an open MCP session included',
  async (t) => {
    const [ops, ci] = [fresh('ops'), fresh('ci')];
    const node = await boot(t, storeDir(t), { T_OPS: ops, T_CI: ci });
    t.equal((await node.call('PUT', '/config', ops, company('ops'))).status, 201);
    await node.run.waitForLog((l) => l.msg === 'config applied' && l['epoch'] === 1);
    t.match((await node.call('GET', '/viewer', ops)).json, { seat: { handle: 'ada-ops' } });

    const client = new Client({ name: 'auth-rotation', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${node.url}/operator/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${ops}` } },
      }),
    );
    t.teardown(() => client.close());
    const before = await client.callTool({
      name: 'pages_write',
      arguments: { container: 'HANDBOOK', title: 'Before the move' },
    });
    t.notOk(before.isError, 'ops acts as Ada while bound');

    t.equal((await node.call('PUT', '/config', ops, company('ci'))).status, 201, 'Ada now bound to ci');
    await node.run.waitForLog((l) => l.msg === 'config applied' && l['epoch'] === 2);

    const viewer = await node.call('GET', '/viewer', ops);
    t.match(viewer.json, { operator_id: 'ops', seat: null, acts: [] }, '/viewer: ops is no one now');
    const act = await node.call('POST', '/operator/act/pages_write', ops, {
      container: 'HANDBOOK',
      title: 'x',
    });
    t.same([act.status, act.json['error']], [403, 'unbound_token'], '/operator/act refuses ops');
    await t.rejects(
      client.callTool({ name: 'pages_write', arguments: { container: 'HANDBOOK', title: 'After the move' } }),
      { code: 403 },
      'the session opened while bound acts no more',
    );
    const mine = await node.call('GET', '/work/my-work', ops);
    t.same([mine.status, mine.json['error']], [400, 'bad_params'], '/work/my-work: ops reads no seat');

    const moved = await node.call('POST', '/operator/act/pages_write', ci, {
      container: 'HANDBOOK',
      title: 'y',
    });
    t.equal(moved.status, 200);
    t.same(moved.json['acted_as'], { kind: 'person', id: 'ada-ops', name: 'Ada Ops' }, 'ci acts as Ada');
    t.match((await node.call('GET', '/work/my-work', ci)).json, { handle: 'ada-ops' });
  },
);
