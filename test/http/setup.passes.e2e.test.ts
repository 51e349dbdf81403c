import type { Test } from 'tap';
import t from 'tap';
import { closedPort, fakeCodehostB, fakeTrackerB, VENDOR_BODY } from './fixtures/fake-vendors.js';
import { company, KEYRING, startSetupNode, type SetupNode } from './fixtures/setup-node.js';

type Json = Record<string, unknown>;
type Run = Json & { id: string; status: string; reason: string | null; steps: Json[] };
const json = async (res: Response): Promise<Json> => (await res.json()) as Json;
const PUBLIC = 'https://hooks.example.test';
const CB_TOKEN = 'cb-owner-token-0123456789';
const TB_TOKEN = 'tb-admin-token-0123456789';

const pass = async (node: SetupNode, kind: string, mode: 'check' | 'provision'): Promise<Run> => {
  const res = await node.call('POST', `/setup/integrations/${kind}/${mode}`);
  if (res.status !== 200) throw new Error(`${mode} answered ${res.status}`);
  return (await res.json()) as Run;
};
const step = (run: Run, name: string): Json | undefined => run.steps.find((s) => s['name'] === name);

/** A node whose codehost-b block points at `url`, its token and signing secret sealed through setup. */
async function codehostBNode(t: Test, url: string): Promise<SetupNode> {
  const node = await startSetupNode(t, { tierA: KEYRING, env: { SVC_PUBLIC_BASE_URL: PUBLIC } });
  await node.putDocument(company());
  const res = await node.call('POST', '/setup/integrations/codehost-b/inputs', {
    body: {
      values: { url, token: CB_TOKEN, group: 'acme', projects: 'api, web', group_webhook: true },
      generate: ['signing_secret'],
    },
  });
  if (res.status !== 201) throw new Error(`inputs answered ${res.status}: ${await res.text()}`);
  return node;
}

t.test('codehost-b: check reads only, provision creates what is missing, check then finds it', async (t) => {
  const vendor = await fakeCodehostB(t, CB_TOKEN);
  const node = await codehostBNode(t, vendor.url);
  const check = await pass(node, 'codehost-b', 'check');
  t.match(check, {
    kind: 'codehost-b',
    mode: 'check',
    status: 'succeeded',
    reason: null,
    node: 'node-0',
    actor: 'ops',
  });
  t.match(step(check, 'group'), { outcome: 'ok' });
  t.match(step(check, 'project api'), { outcome: 'ok' });
  t.match(step(check, 'project web'), { outcome: 'missing' });
  t.match(step(check, 'group webhook'), { outcome: 'missing' });
  t.notOk(
    vendor.seen.some((s) => s.method !== 'GET'),
    'a check changes nothing at the vendor',
  );
  t.ok(
    vendor.seen.every((s) => s.headers['private-token'] === CB_TOKEN),
    'the sealed token is sent',
  );

  const provision = await pass(node, 'codehost-b', 'provision');
  t.equal(provision.status, 'succeeded');
  t.match(step(provision, 'project web'), { outcome: 'changed' });
  t.match(step(provision, 'group webhook'), { outcome: 'changed' });
  t.ok(vendor.projects.has('acme/web'));
  t.equal(vendor.hooks.length, 1);
  t.equal(vendor.hooks[0]!['url'], `${PUBLIC}/webhooks/codehost-b`);
  t.equal(vendor.hooks[0]!['token'], node.secrets.resolve('SVC_CODEHOST_B_SIGNING_SECRET'));
  t.match(String(vendor.hooks[0]!['token']), /^whsec_/);
  t.notMatch(JSON.stringify(provision), CB_TOKEN);

  const again = await pass(node, 'codehost-b', 'check');
  t.ok(
    again.steps.every((s) => s['outcome'] === 'ok'),
    'nothing left missing',
  );
});

t.test(
  'codehost-b: provision mints a group access token per agent seat at the access level, sealed and referenced',
  async (t) => {
    const vendor = await fakeCodehostB(t, CB_TOKEN);
    const node = await startSetupNode(t, { tierA: KEYRING, env: { CB_TOKEN } });
    await node.putDocument(
      company({
        integrations: {
          codehost_b: {
            url: vendor.url,
            token: '${CB_TOKEN}',
            signing_secret: 'cb-signing-secret',
            provisioning: {
              group: 'acme',
              access_level: 'maintainer',
              token_scopes: ['api', 'read_repository'],
            },
          },
        },
      }),
    );
    const check = await pass(node, 'codehost-b', 'check');
    t.notOk(step(check, 'token bo-agent'), 'a check mints nothing');
    const provision = await pass(node, 'codehost-b', 'provision');
    t.equal(provision.status, 'succeeded');
    t.match(
      vendor.tokens.map((k) => [k['name'], k['access_level'], k['scopes']]),
      [
        ['svc-chief-agent', 40, ['api', 'read_repository']],
        ['svc-bo-agent', 40, ['api', 'read_repository']],
      ],
      'one per agent seat, at maintainer (40), none for the human seat',
    );
    t.match(
      String(vendor.tokens[0]!['expires_at']),
      /^\d{4}-\d{2}-\d{2}$/,
      'an expiry date, as the vendor requires',
    );
    t.match(step(provision, 'token bo-agent'), { outcome: 'changed', detail: /svc-bo-agent minted \(maintainer; api, read_repository\)/ }); // prettier-ignore
    t.ok(provision['revision_id'], 'a revision references the minted tokens');
    for (const k of vendor.tokens) t.notMatch(JSON.stringify(provision), String(k['token']));
    t.notMatch(node.rawLogs(), /glpat-seat/, 'no minted token in a log line');
    t.equal(node.secrets.resolve('SVC_CODEHOST_B_BO_AGENT_TOKEN'), vendor.tokens[1]!['token']);
    const doc = await json(await node.call('GET', '/config'));
    const bo = (doc['roles'] as Json[]).find((r) => r['name'] === 'Bo Agent')!;
    t.same(bo['integrations'], { codehost_b: { token: '${SVC_CODEHOST_B_BO_AGENT_TOKEN}' } });
    const again = await pass(node, 'codehost-b', 'provision');
    t.equal(vendor.tokens.length, 2, 'a seat holding a token gets no new one');
    t.equal(again['revision_id'], null);
  },
);

t.test('codehost-b: without token_scopes no seat token is minted; below guest none either', async (t) => {
  const vendor = await fakeCodehostB(t, CB_TOKEN);
  const node = await startSetupNode(t, { tierA: KEYRING, env: { CB_TOKEN } });
  const block = (provisioning: Json) => ({ integrations: { codehost_b: { url: vendor.url, token: '${CB_TOKEN}', signing_secret: 's', provisioning } } }); // prettier-ignore
  await node.putDocument(company(block({ group: 'acme' })));
  const plain = await pass(node, 'codehost-b', 'provision');
  t.match(plain, { status: 'succeeded', revision_id: null });
  t.notOk(step(plain, 'token bo-agent'));
  await node.putDocument(
    company(block({ group: 'acme', access_level: 'minimal_access', token_scopes: ['api'] })),
  );
  const minimal = await pass(node, 'codehost-b', 'provision');
  t.match(step(minimal, 'token bo-agent'), {
    outcome: 'skipped',
    detail: /minimal_access gives a token no access/,
  });
  t.same(vendor.tokens, []);
});

t.test('disconnect removes the group webhook at the vendor, then the block as a new revision', async (t) => {
  const vendor = await fakeCodehostB(t, CB_TOKEN);
  const node = await codehostBNode(t, vendor.url);
  await pass(node, 'codehost-b', 'provision');
  const before = (await json(await node.call('GET', '/setup/integrations')))['revision_id'];
  const res = await node.call('DELETE', '/setup/integrations/codehost-b');
  t.equal(res.status, 200);
  const body = await json(res);
  t.match(body, { kind: 'codehost-b', removed: true, remote: { status: 'succeeded', reason: null } });
  t.not(body['revision_id'], before);
  t.equal(vendor.hooks.length, 0, 'the webhook is gone at the vendor');
  const deleted = vendor.seen.findIndex((s) => s.method === 'DELETE');
  t.ok(deleted >= 0);
  const doc = await json(await node.call('GET', '/config'));
  t.notOk('codehost_b' in ((doc['integrations'] as Json | undefined) ?? {}), 'the block is removed');
  const state = await json(await node.call('GET', '/setup/integrations/codehost-b'));
  t.match(state, { configured: false, revision_id: body['revision_id'] });
  const twice = await json(await node.call('DELETE', '/setup/integrations/codehost-b'));
  t.match(twice, { removed: false, revision_id: null });
});

t.test('an unreachable vendor makes a failed pass with a clear reason', async (t) => {
  const node = await codehostBNode(t, `http://127.0.0.1:${await closedPort()}`);
  const run = await pass(node, 'codehost-b', 'check');
  t.equal(run.status, 'failed');
  t.match(
    run.reason,
    /codehost-b GET \/api\/v4\/groups\/acme: codehost-b is unreachable \(connection refused\)/,
  );
  t.match(run.steps.at(-1), { name: 'stopped', outcome: 'failed' });
  const disconnect = await json(await node.call('DELETE', '/setup/integrations/codehost-b'));
  t.match(disconnect, { removed: true, remote: { status: 'failed', reason: /unreachable/ } });
});

t.test('a refusing vendor fails the pass without its body reaching the answer', async (t) => {
  const vendor = await fakeCodehostB(t, CB_TOKEN);
  const node = await codehostBNode(t, vendor.url);
  vendor.failWith = 500;
  const res = await node.call('POST', '/setup/integrations/codehost-b/provision');
  const text = await res.text();
  t.notMatch(text, VENDOR_BODY);
  t.match(JSON.parse(text), { status: 'failed', reason: /answered 500: the vendor failed/ });
  vendor.failWith = 401;
  const refused = await pass(node, 'codehost-b', 'check');
  t.match(refused.reason, /the credential was refused/);
  t.notMatch(node.rawLogs(), VENDOR_BODY);
  t.notMatch(node.rawLogs(), CB_TOKEN);
  t.match(node.rawLogs(), /"event":"setup_pass".*"status":"failed"/, 'the failed pass is logged');
});

t.test('tracker-b: provision creates projects, one member per agent seat and the webhook', async (t) => {
  const vendor = await fakeTrackerB(t, TB_TOKEN);
  const node = await startSetupNode(t, {
    tierA: KEYRING,
    env: { SVC_PUBLIC_BASE_URL: PUBLIC, TB_TOKEN },
  });
  await node.putDocument(
    company({
      integrations: {
        tracker_b: {
          url: vendor.url,
          workspace: 'acme',
          token: '${TB_TOKEN}',
          webhook_secret: 'tb-webhook-secret',
          provisioning: {
            projects: ['OPS', 'ENG'],
            username_prefix: 'agent-',
            role: 'member',
            token_expiry_days: 30,
          },
        },
      },
    }),
  );
  const check = await pass(node, 'tracker-b', 'check');
  t.match(check, { status: 'succeeded' });
  t.match(step(check, 'project ENG'), { outcome: 'missing' });
  t.match(step(check, 'member agent-bo-agent'), { outcome: 'missing' });
  t.notOk(step(check, 'member agent-hanna-lee'), 'human seats get no member');
  const provision = await pass(node, 'tracker-b', 'provision');
  t.equal(provision.status, 'succeeded');
  t.same(vendor.projects, ['OPS', 'ENG']);
  t.same(
    vendor.members.map((m) => m['username']),
    ['agent-chief-agent', 'agent-bo-agent'],
  );
  t.match(vendor.hooks, [{ url: `${PUBLIC}/webhooks/tracker-b`, secret: 'tb-webhook-secret' }]);
  t.ok(vendor.seen.every((s) => s.headers['x-api-key'] === TB_TOKEN));
  // seat tokens: minted once per agent seat, sealed, referenced from the seat in a new revision
  t.same(
    vendor.tokens.map((k) => [k['username'], k['expires_in_days']]),
    [
      ['agent-chief-agent', 30],
      ['agent-bo-agent', 30],
    ],
  );
  t.match(step(provision, 'token bo-agent'), { outcome: 'changed' });
  t.ok(provision['revision_id'], 'a revision references the minted tokens');
  for (const k of vendor.tokens) t.notMatch(JSON.stringify(provision), String(k['token']));
  t.equal(node.secrets.resolve('SVC_TRACKER_B_BO_AGENT_TOKEN'), vendor.tokens[1]!['token']);
  const doc = await json(await node.call('GET', '/config'));
  const bo = (doc['roles'] as Json[]).find((r) => r['name'] === 'Bo Agent')!;
  t.same(bo['integrations'], { tracker_b: { token: '${SVC_TRACKER_B_BO_AGENT_TOKEN}' } });
  const again = await pass(node, 'tracker-b', 'provision');
  t.equal(vendor.tokens.length, 2, 'a seat holding a token gets no new one');
  t.equal(again['revision_id'], null);
  const del = await json(await node.call('DELETE', '/setup/integrations/tracker-b'));
  t.match(del, { removed: true, remote: { status: 'succeeded' } });
  t.same(vendor.hooks, []);
  t.equal(vendor.members.length, 2, 'members stay: they hold the company’s work');
});

t.test(
  'tracker-b: a username_prefix resolving outside its shape fails the pass before any member call',
  async (t) => {
    const vendor = await fakeTrackerB(t, TB_TOKEN);
    const node = await startSetupNode(t, {
      env: { SVC_PUBLIC_BASE_URL: PUBLIC, TB_TOKEN, TB_PREFIX: '../admin/' },
    });
    await node.putDocument(
      company({
        integrations: {
          tracker_b: {
            url: vendor.url,
            workspace: 'acme',
            token: '${TB_TOKEN}',
            webhook_secret: 's',
            provisioning: { username_prefix: '${TB_PREFIX}' },
          },
        },
      }),
    );
    const run = await pass(node, 'tracker-b', 'provision');
    t.match(run, { status: 'failed' });
    t.match(JSON.stringify(run), /username_prefix is not a username prefix/);
    t.same(vendor.members, [], 'no member was created');
    t.notOk(
      vendor.seen.some((s) => s.path.includes('/members/')),
      'no member path asked',
    );
  },
);

t.test('without a keyring no seat token is minted', async (t) => {
  const vendor = await fakeTrackerB(t, TB_TOKEN);
  const node = await startSetupNode(t, { env: { SVC_PUBLIC_BASE_URL: PUBLIC, TB_TOKEN } });
  await node.putDocument(
    company({
      integrations: {
        tracker_b: {
          url: vendor.url,
          workspace: 'acme',
          token: '${TB_TOKEN}',
          webhook_secret: 's',
          provisioning: { username_prefix: 'agent-', token_expiry_days: 7 },
        },
      },
    }),
  );
  const run = await pass(node, 'tracker-b', 'provision');
  t.match(run, { status: 'succeeded', revision_id: null });
  t.match(step(run, 'token bo-agent'), { outcome: 'skipped', detail: /no keyring/ });
  t.same(vendor.tokens, []);
});

t.test('runs: newest first, ten at a time with a cursor, scope, and one run by id', async (t) => {
  const node = await startSetupNode(t, { tierA: KEYRING });
  const ids: string[] = [];
  for (let i = 0; i < 12; i++) ids.push((await pass(node, 'monitor', 'check')).id);
  const first = await json(await node.call('GET', '/setup/integrations/monitor/runs'));
  t.match(first, { kind: 'monitor', scope: 'fleet', node: 'node-0' });
  const runs = first['runs'] as Run[];
  t.equal(runs.length, 10);
  t.same(
    runs.map((r) => r.id),
    ids.slice().reverse().slice(0, 10),
  );
  t.equal(first['next'], runs[9]!.id);
  const second = await json(
    await node.call('GET', `/setup/integrations/monitor/runs?before=${first['next'] as string}`),
  );
  t.same(
    (second['runs'] as Run[]).map((r) => r.id),
    [ids[1], ids[0]],
  );
  t.equal(second['next'], null);
  t.match(runs[0], { status: 'failed', reason: /webhook_token is not set/ });
  const one = await json(await node.call('GET', `/setup/integrations/monitor/runs/${ids[0]!}`));
  t.match(one, { id: ids[0], kind: 'monitor', mode: 'check', scope: 'fleet' });
  const missing = await node.call('GET', '/setup/integrations/monitor/runs/nope');
  t.equal(missing.status, 404);
  t.equal((await json(missing))['error'], 'not_found');
  t.same((await json(await node.call('GET', '/setup/integrations/wiki/runs')))['runs'], []);
  const stale = await node.call('GET', '/setup/integrations/monitor/runs?before=nosuch');
  t.equal(stale.status, 400, 'a cursor naming no pass is refused, not read as the end');
  t.match(await json(stale), { error: 'bad_params', detail: /names no remembered monitor pass/ });
});

t.test('monitor: a generated token passes the check; disconnect removes it from the store', async (t) => {
  const node = await startSetupNode(t, { tierA: KEYRING });
  await node.call('POST', '/setup/integrations/monitor/inputs', { body: { generate: ['webhook_token'] } });
  t.match(await pass(node, 'monitor', 'provision'), { status: 'succeeded' });
  const del = await json(await node.call('DELETE', '/setup/integrations/monitor'));
  t.match(del, { removed: true });
  t.equal(node.secrets.resolve('SVC_MONITOR_WEBHOOK_TOKEN'), undefined);
  t.match(await json(await node.call('GET', '/setup/integrations/monitor')), { configured: false });
});
