/**
 * Who a served node records and admits (spec "Authentication" 1, 5, 10) on real `svc serve` children: the
 * matched token's id is `created_by` of each revision it writes; `api.auth.disabled: true` writes as
 * `anonymous`; a node without `api.auth` reads openly and refuses every guarded route and write; a document
 * sealed under a keyring refuses the boot of a node with no keyring at all, saying why.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { company } from '../http/fixtures/config-node.js';
import { keyringYaml } from '../http/fixtures/secrets-node.js';
import { freePort, runSvc, type SvcChild } from '../harness/child.js';

const OPS = `ops-${randomBytes(12).toString('hex')}`;
const CI = `ci-${randomBytes(12).toString('hex')}`;
type Json = Record<string, unknown>;

interface Node {
  readonly run: SvcChild;
  readonly url: string;
  call(method: string, path: string, token: string | null, body?: unknown): Promise<Response>;
}

/** A store directory that outlives the nodes started over it. */
function storeDir(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-auth-actor-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true, maxRetries: 5 }));
  return dir;
}

/** Starts `svc serve` over `dir` with `auth` as `api.auth` (none when null) and `extra` Tier A lines. */
async function start(
  t: Test,
  dir: string,
  auth: string | null,
  extra = '',
): Promise<SvcChild & { port: number }> {
  const port = await freePort();
  const file = join(dir, `config-${port}.yaml`);
  const api = `host: 127.0.0.1, port: ${port}${auth === null ? '' : `, auth: ${auth}`}`;
  writeFileSync(
    file,
    [
      'providers: {queue: {type: memory}}',
      `api: {${api}}`,
      `stream: {store_dir: ${join(dir, 'data')}}`,
      extra,
    ].join('\n'),
  );
  const run = runSvc(['serve', '--config', file], { T_OPS: OPS, T_CI: CI });
  t.teardown(() => run.kill('SIGKILL'));
  return Object.assign(run, { port });
}

async function serve(t: Test, dir: string, auth: string | null, extra = ''): Promise<Node> {
  const run = await start(t, dir, auth, extra);
  await run.waitForLog((l) => l.msg === 'node serving');
  const url = `http://127.0.0.1:${run.port}`;
  return {
    run,
    url,
    call: (method, path, token, body) =>
      fetch(`${url}${path}`, {
        method,
        headers: {
          ...(token === null ? {} : { authorization: `Bearer ${token}` }),
          ...(body === undefined ? {} : { 'content-type': 'application/json', 'x-summary': 'auth test' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
  };
}

const twoTokens = '{tokens: [{id: ops, token: "${T_OPS}"}, {id: ci, token: "${T_CI}"}]}';

const revisionOf = async (res: Response): Promise<string> =>
  ((await res.json()) as Json)['revision_id'] as string;

t.test('each revision records the id of the token that wrote it as created_by', async (t) => {
  const node = await serve(t, storeDir(t), twoTokens);
  const byCi = await node.call('PUT', '/config', CI, company());
  t.equal(byCi.status, 201);
  const first = await revisionOf(byCi);
  const byOps = await node.call('PATCH', '/config', OPS, { mission: 'second' });
  t.equal(byOps.status, 201);
  const second = await revisionOf(byOps);
  const history = (await (await node.call('GET', '/config/revisions', OPS)).json()) as Json;
  const rows = (Array.isArray(history) ? history : (history['revisions'] as Json[])) as Json[];
  t.match(
    rows.filter((r) => r['revision_id'] === first || r['revision_id'] === second),
    [
      { revision_id: second, created_by: 'ops', created_by_kind: 'operator' },
      { revision_id: first, created_by: 'ci', created_by_kind: 'operator' },
    ],
  );
  t.match(await (await node.call('GET', `/config/revisions/${first}`, OPS)).json(), { created_by: 'ci' });
  node.run.kill('SIGTERM');
  t.equal(await node.run.exited, 0);
});

t.test('an entity PUT, a revert and a reload record the token that asked for them', async (t) => {
  const node = await serve(t, storeDir(t), twoTokens);
  const first = await revisionOf(await node.call('PUT', '/config', OPS, company()));
  const bo = (await (await node.call('GET', '/config/roles/bo-agent', OPS)).json()) as Json;
  const stored: Array<[string, Response]> = [
    ['entity PUT', await node.call('PUT', '/config/roles/bo-agent', CI, { ...bo, goal: 'Ship it.' })],
    ['revert', await node.call('POST', `/config/revisions/${first}/revert`, CI, {})],
    ['reload', await node.call('POST', '/config/reload', CI)],
  ];
  for (const [what, res] of stored) {
    t.equal(res.status, 201, what);
    t.match(
      await (await node.call('GET', `/config/revisions/${await revisionOf(res)}`, OPS)).json(),
      { created_by: 'ci', created_by_kind: 'operator' },
      `${what}: created_by is the matched token id`,
    );
  }
});

t.test('with the guard disabled anyone writes, recorded as anonymous, and the start warns', async (t) => {
  const node = await serve(t, storeDir(t), '{disabled: true}');
  const warned = node.run.lines.find((l) => l['event'] === 'auth_disabled');
  t.equal(warned?.level, 40, 'a WARNING at start');
  const put = await node.call('PUT', '/config', null, company());
  t.equal(put.status, 201, 'a write without a token is stored');
  const id = await revisionOf(put);
  t.match(await (await node.call('GET', `/config/revisions/${id}`, null)).json(), {
    created_by: 'anonymous',
    created_by_kind: 'anonymous',
  });
  t.equal((await node.call('GET', '/config', 'anything')).status, 200, 'a guarded read, any token');
  const patch = await node.call('PATCH', '/config', 'anything', { mission: 'reloaded' });
  t.equal(patch.status, 201);
  t.match(await (await node.call('GET', `/config/revisions/${await revisionOf(patch)}`, null)).json(), {
    created_by: 'anonymous',
    created_by_kind: 'anonymous',
  });
  node.run.kill('SIGTERM');
  t.equal(await node.run.exited, 0);
});

t.test('without api.auth reads work and every guarded route and write answers 401', async (t) => {
  const node = await serve(t, storeDir(t), null);
  t.equal((await node.call('GET', '/org', null)).status, 200);
  t.equal((await node.call('GET', '/agents', null)).status, 200);
  for (const token of [null, OPS]) {
    const what = token === null ? 'no token' : 'a token of another node';
    t.equal((await node.call('GET', '/config', token)).status, 401, `GET /config, ${what}`);
    t.equal((await node.call('GET', '/fleet', token)).status, 401, `GET /fleet, ${what}`);
    t.equal((await node.call('PUT', '/config', token, company())).status, 401, `PUT /config, ${what}`);
    t.equal((await node.call('POST', '/work', token, {})).status, 401, `POST /work, ${what}`);
  }
  node.run.kill('SIGTERM');
  t.equal(await node.run.exited, 0);
});

t.test('a document sealed under a key refuses the boot of a node with no keyring, saying so', async (t) => {
  const dir = storeDir(t);
  const sealing = await serve(t, dir, twoTokens, keyringYaml('k1', ['k1', 1]));
  t.equal((await sealing.call('PUT', '/config', OPS, company())).status, 201);
  sealing.run.kill('SIGTERM');
  t.equal(await sealing.run.exited, 0);
  const bare = await start(t, dir, twoTokens);
  t.equal(await bare.exited, 1, 'refused');
  t.match(bare.stderr(), /active revision \S+ cannot be opened: .*k1.*secrets\.keys/);
  t.notOk(
    bare.lines.some((l) => l.msg === 'node serving'),
    'never served',
  );
});

/** `created_by` and `created_by_kind` of revision `id`. */
const recordedBy = async (node: Node, token: string | null, id: string): Promise<Json> => {
  const meta = (await (await node.call('GET', `/config/revisions/${id}`, token)).json()) as Json;
  return { created_by: meta['created_by'], created_by_kind: meta['created_by_kind'] };
};

for (const [guard, auth, token, by] of [
  ['disabled', '{disabled: true}', null, { created_by: 'anonymous', created_by_kind: 'anonymous' }],
  ['on', twoTokens, OPS, { created_by: 'ops', created_by_kind: 'operator' }],
] as const) {
  t.test(
    `setup inputs and a disconnect record the caller as the guard saw it (guard ${guard})`,
    async (t) => {
      const node = await serve(t, storeDir(t), auth, keyringYaml('k1', ['k1', 1]));
      t.equal((await node.call('PUT', '/config', token, company())).status, 201);
      const inputs = await node.call('POST', '/setup/integrations/tracker-a/inputs', token, {
        values: { relay_app_id: 'app-1' },
      });
      t.equal(inputs.status, 201);
      t.same(await recordedBy(node, token, await revisionOf(inputs)), by, 'the inputs revision');
      const gone = await node.call('DELETE', '/setup/integrations/relay', token);
      t.equal(gone.status, 200);
      t.same(await recordedBy(node, token, await revisionOf(gone)), by, 'the disconnect revision');
      // A credential sealed by setup names its writer as PUT /secrets does.
      const sealed = await node.call('POST', '/setup/integrations/codehost-a/inputs', token, {
        generate: ['webhook_secret'],
      });
      t.equal(sealed.status, 201);
      t.same(await recordedBy(node, token, await revisionOf(sealed)), by, 'the sealing revision');
      const put = await fetch(`${node.url}/secrets/PLAIN_ONE`, {
        method: 'PUT',
        headers: token === null ? {} : { authorization: `Bearer ${token}` },
        body: 'value-0123456789',
      });
      t.equal(put.status, 200);
      const listed = (await (await node.call('GET', '/secrets', token)).json()) as Json;
      const rows = (Array.isArray(listed) ? listed : (listed['secrets'] as Json[])) as Json[];
      const byName = Object.fromEntries(rows.map((r) => [r['name'], r['updated_by']]));
      t.same(
        { setup: byName['SVC_CODEHOST_A_WEBHOOK_SECRET'], put: byName['PLAIN_ONE'] },
        { setup: by.created_by, put: by.created_by },
      );
      node.run.kill('SIGTERM');
      t.equal(await node.run.exited, 0);
    },
  );
}
