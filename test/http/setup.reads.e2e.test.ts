import t from 'tap';
import { company, KEYRING, startSetupNode } from './fixtures/setup-node.js';

type Json = Record<string, unknown>;
type Req = Json & { field: string };
type State = Json & { key: string; requirements: Req[] };
const json = async (res: Response): Promise<Json> => (await res.json()) as Json;
const kinds = ['tracker-a', 'wiki', 'relay', 'chat', 'codehost-a', 'codehost-b', 'tracker-b', 'monitor'];

t.test('lists every kind with its state before the first revision', async (t) => {
  const node = await startSetupNode(t);
  const res = await node.call('GET', '/setup/integrations');
  t.equal(res.status, 200);
  const body = await json(res);
  t.equal(body['revision_id'], null);
  const states = body['integrations'] as State[];
  t.same(
    states.map((s) => s.key),
    kinds,
  );
  for (const s of states) {
    t.equal(s['configured'], false, s.key);
    t.equal(s['enabled'], false, s.key);
    t.equal(s['satisfied'], false, s.key);
    t.match(s['inbound_path'], /^\/webhooks\//, s.key);
    t.equal(s['public_url'], null, s.key);
    for (const r of s.requirements) {
      for (const f of ['field', 'label', 'kind', 'config_path', 'secret_name', 'required', 'mintable']) {
        t.ok(f in r, `${s.key}.${r.field} has ${f}`);
      }
      for (const f of ['help', 'where', 'vendor_url', 'blocks', 'present', 'resolved']) t.ok(f in r);
      t.ok(['secret', 'url', 'id', 'choice', 'text', 'handle', 'toggle'].includes(r['kind'] as string));
    }
  }
  t.same(body['public_base_url'], { present: false, resolved: null, reference: 'SVC_PUBLIC_BASE_URL' });
});

t.test('setup routes need a token, reads included', async (t) => {
  const node = await startSetupNode(t);
  for (const [method, path] of [
    ['GET', '/setup/integrations'],
    ['GET', '/setup/integrations/monitor'],
    ['GET', '/setup/integrations/monitor/runs'],
    ['POST', '/setup/integrations/monitor/check'],
  ] as const) {
    const res = await node.call(method, path, { auth: null });
    t.equal(res.status, 401, `${method} ${path}`);
    t.equal((await json(res))['error'], 'invalid_token');
  }
});

t.test('an unknown kind answers 404 on every route', async (t) => {
  const node = await startSetupNode(t);
  for (const [method, path] of [
    ['GET', '/setup/integrations/pager'],
    ['POST', '/setup/integrations/pager/inputs'],
    ['DELETE', '/setup/integrations/pager'],
    ['POST', '/setup/integrations/pager/provision'],
    ['GET', '/setup/integrations/pager/runs'],
  ] as const) {
    const res = await node.call(method, path, method === 'POST' ? { body: { values: {} } } : {});
    t.equal(res.status, 404, `${method} ${path}`);
    t.equal((await json(res))['error'], 'not_found');
  }
});

t.test('the monitor lists webhook_token first; the relay app id is listed with tracker-a only', async (t) => {
  const node = await startSetupNode(t);
  const states = (await json(await node.call('GET', '/setup/integrations')))['integrations'] as State[];
  const monitor = states.find((s) => s.key === 'monitor')!;
  t.match(monitor.requirements[0], {
    field: 'webhook_token',
    kind: 'secret',
    mintable: true,
    required: true,
  });
  const holders = states.filter((s) =>
    s.requirements.some((r) => r['config_path'] === 'integrations.relay_app_id'),
  );
  t.same(
    holders.map((s) => s.key),
    ['tracker-a'],
  );
});

t.test('the public base URL comes from SVC_PUBLIC_BASE_URL and prefixes each inbound path', async (t) => {
  const node = await startSetupNode(t, { env: { SVC_PUBLIC_BASE_URL: 'https://hooks.example.test/' } });
  const body = await json(await node.call('GET', '/setup/integrations/codehost-b'));
  t.same(body['public_base_url'], {
    present: true,
    resolved: 'https://hooks.example.test',
    reference: 'SVC_PUBLIC_BASE_URL',
  });
  t.equal(body['public_url'], 'https://hooks.example.test/webhooks/codehost-b');
  const bad = await startSetupNode(t, { env: { SVC_PUBLIC_BASE_URL: 'not a url' } });
  const badBody = await json(await bad.call('GET', '/setup/integrations/codehost-b'));
  t.same(badBody['public_base_url'], { present: true, resolved: null, reference: 'SVC_PUBLIC_BASE_URL' });
  t.equal(badBody['public_url'], null);
});

t.test(
  'a reference field that resolves to a stored secret or a token value shows no resolved_value',
  async (t) => {
    const node = await startSetupNode(t, {
      tierA: KEYRING,
      env: { CI_TOKEN_VALUE: 'ci-token-fedcba9876543210' },
    });
    await node.putDocument(company());
    const sealed = await node.call('POST', '/setup/integrations/codehost-a/inputs', {
      body: { values: { webhook_secret: 'stored-workspace-secret' } },
    });
    t.equal(sealed.status, 201);
    await node.putDocument(
      company({
        integrations: {
          tracker_b: { url: '${CI_TOKEN_VALUE}', workspace: '${SVC_CODEHOST_A_WEBHOOK_SECRET}' },
          codehost_a: { webhook_secret: '${SVC_CODEHOST_A_WEBHOOK_SECRET}' },
        },
      }),
    );
    const res = await node.call('GET', '/setup/integrations/tracker-b');
    const text = await res.text();
    t.notMatch(text, 'ci-token-fedcba9876543210', "another operator's token is not shown");
    t.notMatch(text, 'stored-workspace-secret', 'a stored secret is not shown');
    const reqs = (JSON.parse(text) as State).requirements;
    t.match(
      reqs.find((r) => r.field === 'url'),
      { present: true, resolved: 'environment', resolved_value: null },
    );
    t.match(
      reqs.find((r) => r.field === 'token'),
      { vendor_url: null },
      'nor in a vendor link built on it',
    );
    t.match(
      reqs.find((r) => r.field === 'workspace'),
      { present: true, resolved: 'store', resolved_value: null },
    );
  },
);

t.test('state shows references, resolved values of reference fields, and never a credential', async (t) => {
  const node = await startSetupNode(t, {
    env: { TB_URL: 'https://tb.example.test', TB_TOKEN: 'tb-token-from-env-0001' },
  });
  const id = await node.putDocument(
    company({
      integrations: {
        tracker_b: {
          url: '${TB_URL}',
          workspace: 'acme',
          token: '${TB_TOKEN}',
          webhook_secret: 'literal-webhook-secret-42',
        },
        codehost_a: { webhook_secret: '${CA_SECRET}' },
      },
    }),
  );
  const res = await node.call('GET', '/setup/integrations/tracker-b');
  const text = await res.text();
  t.notMatch(text, 'literal-webhook-secret-42', 'a literal credential is never shown');
  t.notMatch(text, 'tb-token-from-env-0001', 'a resolved credential is never shown');
  const body = JSON.parse(text) as State;
  t.equal(body['revision_id'], id);
  const req = (f: string) => body.requirements.find((r) => r.field === f)!;
  t.match(req('url'), {
    value: '${TB_URL}',
    present: true,
    resolved: 'environment',
    resolved_value: 'https://tb.example.test',
  });
  t.match(req('token'), { value: '${TB_TOKEN}', present: true, resolved: 'environment' });
  t.notOk('resolved_value' in req('token'), 'a secret has no resolved_value');
  t.match(req('webhook_secret'), { value: null, present: true, resolved: 'document' });
  t.notOk('resolved_value' in req('workspace'), 'a literal field is not a reference field');
  t.match(req('role'), { present: false, resolved: null });
  t.match(req('token'), { vendor_url: 'https://tb.example.test/profile/api-tokens' });
  t.match(body, { configured: true, enabled: true, satisfied: true });

  const codehostA = await json(await node.call('GET', '/setup/integrations/codehost-a'));
  const secret = (codehostA['requirements'] as Req[])[0]!;
  t.match(secret, { value: '${CA_SECRET}', present: true, resolved: null });
  t.match(
    codehostA,
    { configured: true, enabled: true, satisfied: false },
    'an unanswered reference is not satisfied',
  );
});

t.test('a block switched off reads as configured but not enabled', async (t) => {
  const node = await startSetupNode(t);
  await node.putDocument(
    company({ integrations: { codehost_b: { enabled: false, url: 'https://cb.example.test' } } }),
  );
  const body = await json(await node.call('GET', '/setup/integrations/codehost-b'));
  t.match(body, { configured: true, enabled: false, satisfied: false });
  const toggle = (body['requirements'] as Req[]).find((r) => r.field === 'enabled')!;
  t.match(toggle, { value: false, present: true });
});

t.test('tracker-a is satisfied by a cloud id instead of a url', async (t) => {
  const node = await startSetupNode(t, { env: { TA_TOKEN: 'x' } });
  await node.putDocument(
    company({
      integrations: { tracker_a: { cloud_id: 'c-1', email: 'ops@example.test', token: '${TA_TOKEN}' } },
    }),
  );
  t.match(await json(await node.call('GET', '/setup/integrations/tracker-a')), { satisfied: true });
  const relay = await json(await node.call('GET', '/setup/integrations/relay'));
  t.match(relay, { configured: false, requirements: [] });
});

t.test(
  'a reference field naming a variable the document uses as a credential, or named as one, shows no resolved_value',
  async (t) => {
    const node = await startSetupNode(t, {
      env: {
        TB_TOKEN: 'tb-token-from-env-0002',
        ACME_API_KEY: 'acme-api-key-from-env-0003',
        TB_URL: 'https://tb.example.test',
      },
    });
    await node.putDocument(
      company({
        providers: { llm: { main: { type: 'openai', model: 'm', api_keys: ['${ACME_API_KEY}'] } } },
        integrations: {
          tracker_b: { url: '${TB_URL}', token: '${TB_TOKEN}', workspace: '${TB_TOKEN}' },
          codehost_b: { url: 'https://cb.example.test', provisioning: { group: '${ACME_API_KEY}' } },
        },
      }),
    );
    const text = await (await node.call('GET', '/setup/integrations')).text();
    t.notMatch(text, 'tb-token-from-env-0002', 'a token the document uses at a credential leaf');
    t.notMatch(text, 'acme-api-key-from-env-0003', 'a key an LLM provider uses');
    const states = (JSON.parse(text) as { integrations: State[] }).integrations;
    const req = (kind: string, field: string) =>
      states.find((s) => s.key === kind)!.requirements.find((r) => r.field === field)!;
    t.match(req('tracker-b', 'workspace'), { present: true, resolved: 'environment', resolved_value: null });
    t.match(req('codehost-b', 'group'), { present: true, resolved: 'environment', resolved_value: null });
    t.match(
      req('tracker-b', 'url'),
      { resolved_value: 'https://tb.example.test' },
      'a plain reference is still shown',
    );
  },
);

t.test(
  'a reference field naming a variable whose name says credential shows no resolved_value',
  async (t) => {
    const node = await startSetupNode(t, { env: { DEPLOY_SECRET: 'deploy-secret-from-env-0004' } });
    await node.putDocument(company({ integrations: { tracker_b: { url: 'https://tb.example.test', workspace: '${DEPLOY_SECRET}' } } })); // prettier-ignore
    const text = await (await node.call('GET', '/setup/integrations/tracker-b')).text();
    t.notMatch(text, 'deploy-secret-from-env-0004');
    t.match(
      (JSON.parse(text) as State).requirements.find((r) => r.field === 'workspace'),
      {
        present: true,
        resolved_value: null,
      },
    );
  },
);
