// Setup inputs: what must hold before anything is sealed (a keyring, a current if_match, an active
// document the writer takes, a writer's token), and refusals that answer before a slow body.
import t from 'tap';
import { openConnection } from '../harness/raw-http.js';
import {
  CI_TOKEN,
  company,
  json,
  KEYRING,
  postInputs,
  startSetupNode,
  storedSecret,
  type Json,
} from './fixtures/setup-node.js';

t.test('without a keyring a credential answers 503 no_keyring and nothing is stored', async (t) => {
  const node = await startSetupNode(t);
  const first = await node.putDocument(company());
  for (const body of [{ values: { token: 'tok-0123456789' } }, { generate: ['webhook_secret'] }]) {
    const res = await postInputs(node, 'tracker-b', body);
    t.equal(res.status, 503);
    t.equal((await json(res))['error'], 'no_keyring');
  }
  t.equal((await json(await node.call('GET', '/setup/integrations')))['revision_id'], first);
  const plain = await postInputs(node, 'tracker-b', {
    values: { url: 'https://tb.example.test', workspace: 'w' },
  });
  t.equal(plain.status, 201, 'fields that are not credentials need no keyring');
  const monitor = await postInputs(node, 'monitor', { generate: ['webhook_token'] });
  t.equal(monitor.status, 503);
});

t.test('a stale if_match is 409 revision_advanced and nothing is sealed or stored', async (t) => {
  const node = await startSetupNode(t, { tierA: KEYRING });
  const first = await node.putDocument(company());
  const second = await node.putDocument(company({ mission: 'Ship.' }));
  const res = await postInputs(node, 'codehost-a', {
    if_match: first,
    values: { webhook_secret: 'fresh-secret-1' },
  });
  t.equal(res.status, 409);
  t.match(
    await json(res),
    { error: 'revision_advanced', stored_revision_id: null, active_revision_id: second },
    'no losing revision was stored: the active one is not named as if it were',
  );
  t.equal(storedSecret(node, 'SVC_CODEHOST_A_WEBHOOK_SECRET'), undefined);
  t.equal((await json(await node.call('GET', '/setup/integrations')))['revision_id'], second);
  const quoted = await postInputs(node, 'codehost-a', {
    if_match: `"${second}"`,
    values: { webhook_secret: 'fresh-secret-1' },
  });
  t.equal(quoted.status, 201, 'the ETag form of the current revision proceeds');
  const huge = await postInputs(node, 'codehost-a', {
    if_match: `"${'a'.repeat(100_000)}"`,
    values: { webhook_secret: 'fresh-secret-2' },
  });
  t.equal(huge.status, 400, 'an if_match no revision id could be is refused as it stands');
  const refusal = await huge.text();
  t.match(JSON.parse(refusal), { error: 'invalid_body' });
  t.ok(refusal.length < 2_000, 'the refusal does not echo it back');
  t.equal(storedSecret(node, 'SVC_CODEHOST_A_WEBHOOK_SECRET'), 'fresh-secret-1', 'nothing sealed');
});

/** A managed document: `ops` writes it, `ci` (CI_TOKEN) only reads. */
const managedAuth = {
  disabled: false,
  allowAnonymousRead: true,
  tokens: [
    { id: 'ops', token: 'ops-token-0123456789abcdef' },
    { id: 'ci', token: CI_TOKEN },
  ],
  companyWriters: ['ops'],
};

t.test('a managed document refuses non-writers with 403 before reading the body', async (t) => {
  const node = await startSetupNode(t, { tierA: KEYRING, auth: managedAuth });
  await node.putDocument(company());
  for (const [method, path, body] of [
    ['POST', '/setup/integrations/codehost-a/inputs', '{not json'],
    ['POST', '/setup/integrations/codehost-a/inputs', { values: { webhook_secret: 's' } }],
    ['DELETE', '/setup/integrations/codehost-a', undefined],
    ['POST', '/setup/integrations/tracker-b/provision', undefined],
  ] as const) {
    const res = await node.call(method, path, { auth: CI_TOKEN, ...(body !== undefined ? { body } : {}) });
    t.equal(res.status, 403, `${method} ${path}`);
    t.match(await json(res), { error: 'config_managed', managed_by: ['ops'] });
  }
  t.equal(storedSecret(node, 'SVC_CODEHOST_A_WEBHOOK_SECRET'), undefined);
  t.equal((await node.call('GET', '/setup/integrations', { auth: CI_TOKEN })).status, 200, 'reads stay open');
  t.equal(
    (await node.call('POST', '/setup/integrations/monitor/check', { auth: CI_TOKEN })).status,
    200,
    'so does check',
  );
  const writer = await postInputs(node, 'codehost-a', { values: { webhook_secret: 'writer-secret-1' } });
  t.equal(writer.status, 201);
});

t.test('a document the writer refuses seals nothing', async (t) => {
  const node = await startSetupNode(t, { tierA: KEYRING });
  await node.putDocument(company({ integrations: { wiki: { url: 'https://wiki.example.test' } } }));
  const res = await postInputs(node, 'tracker-b', {
    values: { url: 'https://tb.example.test', workspace: 'w', token: 'tb-token-refused-1' },
  });
  t.equal(res.status, 400);
  t.equal((await json(res))['error'], 'validation_error', 'wiki and tracker-b are mutually exclusive');
  t.equal(storedSecret(node, 'SVC_TRACKER_B_TOKEN'), undefined);
  const choice = await postInputs(node, 'codehost-b', { values: { access_level: 'emperor' } });
  t.match(await json(choice), { error: 'validation_error', problems: [{ path: 'values.access_level' }] });
  const days = await postInputs(node, 'tracker-b', { values: { token_expiry_days: '-3' } });
  t.match(await json(days), { error: 'validation_error' });
});

t.test(
  'before the first revision a document field is 409 no_active_revision, 412 under if_match',
  async (t) => {
    const node = await startSetupNode(t, { tierA: KEYRING });
    const res = await postInputs(node, 'codehost-a', { values: { webhook_secret: 'abc' } });
    t.equal(res.status, 409);
    t.equal((await json(res))['error'], 'no_active_revision');
    t.equal(storedSecret(node, 'SVC_CODEHOST_A_WEBHOOK_SECRET'), undefined);
    // With an if_match there is nothing to match: 412, whose hint names the first document, not dropping it.
    const matched = await postInputs(node, 'codehost-a', {
      if_match: 'r-1',
      values: { webhook_secret: 'abc' },
    });
    t.equal(matched.status, 412);
    t.match(await json(matched), { error: 'no_active_revision', hint: /first document with `PUT \/config`/ });
    t.equal(storedSecret(node, 'SVC_CODEHOST_A_WEBHOOK_SECRET'), undefined);
  },
);

t.test(
  'a non-writer on a managed document, or an unknown kind, is refused before a slow body arrives',
  async (t) => {
    const node = await startSetupNode(t, { tierA: KEYRING, auth: managedAuth });
    await node.putDocument(company());
    for (const [method, path, token, status, error] of [
      ['POST', '/setup/integrations/codehost-a/inputs', CI_TOKEN, 403, 'config_managed'],
      ['DELETE', '/setup/integrations/codehost-a', CI_TOKEN, 403, 'config_managed'],
      ['POST', '/setup/integrations/tracker-b/provision', CI_TOKEN, 403, 'config_managed'],
      ['POST', '/setup/integrations/nope/inputs', 'ops-token-0123456789abcdef', 404, 'not_found'],
    ] as const) {
      const conn = await openConnection(node.harness.gw.port);
      t.teardown(() => conn.close());
      // Most of the body never comes: the answer must not wait for it (30 s body deadline).
      conn.write(
        `${method} ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"values":`,
      );
      const answer = await Promise.race([
        conn.response(),
        new Promise<null>((resolve) => setTimeout(() => resolve(null), 2_000)),
      ]);
      t.ok(answer, `${method} ${path} answered without the body`);
      t.equal(answer?.status, status, `${method} ${path}`);
      t.equal((JSON.parse(answer?.body ?? '{}') as Json)['error'], error);
    }
    t.equal(storedSecret(node, 'SVC_CODEHOST_A_WEBHOOK_SECRET'), undefined);
  },
);
