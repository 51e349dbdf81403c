// Setup inputs: what is sealed, under which name, with what value, and what the document then references.
import t from 'tap';
import {
  activeDocument,
  company,
  json,
  KEYRING,
  postInputs,
  startSetupNode,
  storedSecret,
  type Json,
} from './fixtures/setup-node.js';

t.test('credentials are sealed and referenced, the rest patched as a new revision', async (t) => {
  const node = await startSetupNode(t, { tierA: KEYRING });
  const first = await node.putDocument(company());
  const res = await postInputs(node, 'tracker-b', {
    if_match: first,
    values: {
      url: 'https://tb.example.test',
      workspace: 'acme',
      token: 'tb-admin-token-0123456789',
      projects: 'OPS, ENG',
      token_expiry_days: '30',
    },
    generate: ['webhook_secret'],
  });
  const text = await res.text();
  t.equal(res.status, 201, text);
  t.notMatch(text, 'tb-admin-token-0123456789', 'the answer carries no credential');
  const body = JSON.parse(text) as Json;
  t.not(body['revision_id'], first);
  t.same(body['sealed'], [
    { field: 'token', secret_name: 'SVC_TRACKER_B_TOKEN', generated: false },
    { field: 'webhook_secret', secret_name: 'SVC_TRACKER_B_WEBHOOK_SECRET', generated: true },
  ]);
  t.equal(storedSecret(node, 'SVC_TRACKER_B_TOKEN'), 'tb-admin-token-0123456789');
  const minted = storedSecret(node, 'SVC_TRACKER_B_WEBHOOK_SECRET') ?? '';
  t.match(minted, /^[A-Za-z0-9_-]{43}$/, '32 bytes from the CSPRNG, base64url');
  t.notMatch(text, minted);
  t.notMatch(node.rawLogs(), 'tb-admin-token-0123456789', 'logs carry names, never values');
  t.notMatch(node.rawLogs(), minted);
  t.match(node.rawLogs(), /"event":"setup_inputs"/);
  const doc = await activeDocument(node);
  t.same((doc['integrations'] as Json)['tracker_b'], {
    url: 'https://tb.example.test',
    workspace: 'acme',
    token: '${SVC_TRACKER_B_TOKEN}',
    webhook_secret: '${SVC_TRACKER_B_WEBHOOK_SECRET}',
    provisioning: { projects: ['OPS', 'ENG'], token_expiry_days: 30 },
  });
  const state = await node.call('GET', '/setup/integrations/tracker-b');
  const stateText = await state.text();
  t.notMatch(stateText, minted);
  t.notMatch(stateText, 'tb-admin-token-0123456789');
  const st = JSON.parse(stateText) as Json & { requirements: Json[] };
  t.match(st, { configured: true, enabled: true, satisfied: true, revision_id: body['revision_id'] });
  t.match(
    st.requirements.find((r) => r['field'] === 'token'),
    {
      value: '${SVC_TRACKER_B_TOKEN}',
      present: true,
      resolved: 'store',
    },
  );
  const meta = await json(await node.call('GET', `/config/revisions/${body['revision_id'] as string}`));
  t.match(meta, { summary: /setup tracker-b/, created_by: 'ops' });
});

t.test('a second generate keeps the name the document already references', async (t) => {
  const node = await startSetupNode(t, { tierA: KEYRING });
  await node.putDocument(company({ integrations: { codehost_a: { webhook_secret: '${MY_CA_SECRET}' } } }));
  const res = await postInputs(node, 'codehost-a', { generate: ['webhook_secret'] });
  t.equal(res.status, 201);
  t.match(await json(res), { sealed: [{ secret_name: 'MY_CA_SECRET', generated: true }] });
  t.match(storedSecret(node, 'MY_CA_SECRET'), /^[A-Za-z0-9_-]{43}$/);
});

t.test(
  'a pasted credential is sealed without the whitespace around it, and measured without it',
  async (t) => {
    const node = await startSetupNode(t, { tierA: KEYRING });
    await node.putDocument(company());
    const padded = await postInputs(node, 'monitor', { values: { webhook_token: ` ${'m'.repeat(25)}\n` } });
    t.equal(padded.status, 400, '25 characters and a newline are not 26');
    t.match(await json(padded), { error: 'validation_error', problems: [{ path: 'values.webhook_token' }] });
    const blank = await postInputs(node, 'monitor', { values: { webhook_token: ' \n' } });
    t.match(await json(blank), { error: 'invalid_body', problems: [{ message: /cannot be empty/ }] });
    const res = await postInputs(node, 'monitor', { values: { webhook_token: `${'m'.repeat(26)}\r\n` } });
    t.equal(res.status, 200);
    t.equal(storedSecret(node, 'SVC_MONITOR_WEBHOOK_TOKEN'), 'm'.repeat(26), 'the token a header can carry');
  },
);

t.test('the monitor token is sealed in the store only and must be long enough', async (t) => {
  const node = await startSetupNode(t, { tierA: KEYRING });
  const first = await node.putDocument(company());
  const short = await postInputs(node, 'monitor', { values: { webhook_token: 'too-short' } });
  t.equal(short.status, 400);
  const shortBody = await short.text();
  t.match(shortBody, 'validation_error');
  t.notMatch(shortBody, 'too-short', 'the refusal never quotes the value');
  const res = await postInputs(node, 'monitor', { generate: ['webhook_token'] });
  t.equal(res.status, 200, 'nothing in the document changes');
  t.match(await json(res), {
    revision_id: null,
    sealed: [{ field: 'webhook_token', secret_name: 'SVC_MONITOR_WEBHOOK_TOKEN' }],
  });
  t.ok((storedSecret(node, 'SVC_MONITOR_WEBHOOK_TOKEN') ?? '').length >= 26);
  t.equal((await json(await node.call('GET', '/setup/integrations')))['revision_id'], first);
  const state = (await json(await node.call('GET', '/setup/integrations/monitor'))) as Json & {
    requirements: Json[];
  };
  t.match(state, { configured: true, enabled: true, satisfied: true });
  t.match(state.requirements[0], { value: '${SVC_MONITOR_WEBHOOK_TOKEN}', present: true, resolved: 'store' });
});

t.test(
  'the wiki cloud token is an optional store-only secret sealed as SVC_WIKI_WEBHOOK_TOKEN',
  async (t) => {
    const node = await startSetupNode(t, { tierA: KEYRING });
    await node.putDocument(
      company({
        integrations: { wiki: { cloud_id: 'site-1', email: 'a@example.test', token: 'wiki-api-1' } },
      }),
    );
    type State = Json & { requirements: Array<Json & { field: string }> };
    const wiki = async (): Promise<State> =>
      (await json(await node.call('GET', '/setup/integrations/wiki'))) as State;
    const before = await wiki();
    t.match(before, { configured: true, satisfied: true }, 'a wiki runs without it');
    t.match(
      before.requirements.find((r) => r.field === 'webhook_token'),
      {
        kind: 'secret',
        config_path: null,
        secret_name: 'SVC_WIKI_WEBHOOK_TOKEN',
        required: false,
        mintable: true,
        present: false,
        resolved: null,
      },
    );
    const res = await postInputs(node, 'wiki', { generate: ['webhook_token'] });
    t.equal(res.status, 200, 'nothing in the document changes');
    t.match(await json(res), {
      revision_id: null,
      sealed: [{ field: 'webhook_token', secret_name: 'SVC_WIKI_WEBHOOK_TOKEN', generated: true }],
    });
    t.match(storedSecret(node, 'SVC_WIKI_WEBHOOK_TOKEN'), /^[A-Za-z0-9_-]{43}$/);
    t.match(
      (await wiki()).requirements.find((r) => r.field === 'webhook_token'),
      {
        value: '${SVC_WIKI_WEBHOOK_TOKEN}',
        present: true,
        resolved: 'store',
      },
    );
  },
);

t.test(
  "racing writes of one credential: the losers answer 409 and the store holds the winner's value",
  async (t) => {
    const node = await startSetupNode(t, { tierA: KEYRING });
    await node.putDocument(company());
    // The document already references the name, so every racer seals under the same one.
    const seed = await postInputs(node, 'wiki', { values: { url: 'https://wiki.example.test/0', token: 'wiki-token-0' } }); // prettier-ignore
    t.equal(seed.status, 201);
    const answers = await Promise.all(
      [1, 2, 3, 4, 5, 6].map((i) =>
        postInputs(node, 'wiki', {
          values: { url: `https://wiki.example.test/${i}`, token: `wiki-token-${i}` },
        }),
      ),
    );
    const won = answers.flatMap((res, i) => (res.status === 201 ? [i + 1] : []));
    t.ok(won.length >= 1, 'at least one write is stored');
    for (const res of answers)
      t.ok(res.status === 201 || res.status === 409, `201 or 409, not ${res.status}`);
    const url = ((await activeDocument(node))['integrations'] as Json & { wiki: Json })['wiki'][
      'url'
    ] as string;
    const winner = Number(url.slice(url.lastIndexOf('/') + 1));
    t.ok(won.includes(winner), "the active url is a winner's");
    t.equal(storedSecret(node, 'SVC_WIKI_TOKEN'), `wiki-token-${winner}`, "the token is the same winner's");
  },
);
