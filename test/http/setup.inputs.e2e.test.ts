import t from 'tap';
import { openConnection } from '../harness/raw-http.js';
import { CI_TOKEN, company, KEYRING, startSetupNode, type SetupNode } from './fixtures/setup-node.js';

type Json = Record<string, unknown>;
const json = async (res: Response): Promise<Json> => (await res.json()) as Json;
const inputs = (node: SetupNode, kind: string, body: unknown, auth?: string) =>
  node.call('POST', `/setup/integrations/${kind}/inputs`, { body, ...(auth ? { auth } : {}) });
const active = async (node: SetupNode): Promise<Json> => await json(await node.call('GET', '/config'));
const stored = (node: SetupNode, name: string): string | undefined => node.secrets.resolve(name);

t.test('credentials are sealed and referenced, the rest patched as a new revision', async (t) => {
  const node = await startSetupNode(t, { tierA: KEYRING });
  const first = await node.putDocument(company());
  const res = await inputs(node, 'tracker-b', {
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
  t.equal(stored(node, 'SVC_TRACKER_B_TOKEN'), 'tb-admin-token-0123456789');
  const minted = stored(node, 'SVC_TRACKER_B_WEBHOOK_SECRET') ?? '';
  t.match(minted, /^[A-Za-z0-9_-]{43}$/, '32 bytes from the CSPRNG, base64url');
  t.notMatch(text, minted);
  t.notMatch(node.rawLogs(), 'tb-admin-token-0123456789', 'logs carry names, never values');
  t.notMatch(node.rawLogs(), minted);
  t.match(node.rawLogs(), /"event":"setup_inputs"/);
  const doc = await active(node);
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
  const res = await inputs(node, 'codehost-a', { generate: ['webhook_secret'] });
  t.equal(res.status, 201);
  t.match(await json(res), { sealed: [{ secret_name: 'MY_CA_SECRET', generated: true }] });
  t.match(stored(node, 'MY_CA_SECRET'), /^[A-Za-z0-9_-]{43}$/);
});

t.test('without a keyring a credential answers 503 no_keyring and nothing is stored', async (t) => {
  const node = await startSetupNode(t);
  const first = await node.putDocument(company());
  for (const body of [{ values: { token: 'tok-0123456789' } }, { generate: ['webhook_secret'] }]) {
    const res = await inputs(node, 'tracker-b', body);
    t.equal(res.status, 503);
    t.equal((await json(res))['error'], 'no_keyring');
  }
  t.equal((await json(await node.call('GET', '/setup/integrations')))['revision_id'], first);
  const plain = await inputs(node, 'tracker-b', {
    values: { url: 'https://tb.example.test', workspace: 'w' },
  });
  t.equal(plain.status, 201, 'fields that are not credentials need no keyring');
  const monitor = await inputs(node, 'monitor', { generate: ['webhook_token'] });
  t.equal(monitor.status, 503);
});

t.test('a field both given and generated is 400, and so is a field that cannot be generated', async (t) => {
  const node = await startSetupNode(t, { tierA: KEYRING });
  await node.putDocument(company());
  const both = await inputs(node, 'codehost-a', {
    values: { webhook_secret: 'given-secret-value' },
    generate: ['webhook_secret'],
  });
  t.equal(both.status, 400);
  t.match(await json(both), {
    error: 'invalid_body',
    problems: [{ path: 'values.webhook_secret', kind: 'conflict' }],
  });
  t.equal(stored(node, 'SVC_CODEHOST_A_WEBHOOK_SECRET'), undefined, 'nothing sealed');
  const notMintable = await inputs(node, 'tracker-b', { generate: ['token'] });
  t.equal(notMintable.status, 400);
  const unknown = await inputs(node, 'tracker-b', { values: { colour: 'blue' } });
  t.match(await json(unknown), { error: 'invalid_body', problems: [{ kind: 'unknown_field' }] });
  const extraKey = await inputs(node, 'tracker-b', { values: {}, extra: 1 });
  t.equal(extraKey.status, 400);
  const notJson = await node.call('POST', '/setup/integrations/tracker-b/inputs', { body: '{nope' });
  t.match(await json(notJson), { error: 'invalid_body' });
  for (const empty of [{}, { values: {} }, { values: {}, generate: [] }]) {
    const none = await inputs(node, 'tracker-b', empty);
    t.equal(none.status, 400, `${JSON.stringify(empty)}: nothing would change`);
    t.match(await json(none), { error: 'invalid_body', problems: [{ path: 'values', kind: 'missing' }] });
  }
});

t.test(
  'a field repeated in the body is refused at its path, naming no value, and nothing is sealed',
  async (t) => {
    const node = await startSetupNode(t, { tierA: KEYRING });
    await node.putDocument(company());
    // JSON.parse would keep the second token and drop the first without a word.
    const body =
      '{"values": {"url": "https://tb.example.test", "workspace": "acme", "token": "tb-first-0123456789", ' +
      '"token": "tb-second-0123456789"}, "generate": ["webhook_secret"]}';
    const res = await node.call('POST', '/setup/integrations/tracker-b/inputs', { body });
    const text = await res.text();
    t.equal(res.status, 400, text);
    t.match(JSON.parse(text), {
      error: 'invalid_body',
      problems: [{ path: 'values.token', segments: ['values', 'token'], kind: 'invalid' }],
    });
    t.notMatch(text, /tb-(first|second)/, 'no value is quoted');
    t.equal(stored(node, 'SVC_TRACKER_B_TOKEN'), undefined, 'nothing sealed');
  },
);

t.test('a toggle must be a JSON boolean', async (t) => {
  const node = await startSetupNode(t);
  await node.putDocument(company({ integrations: { codehost_b: { url: 'https://cb.example.test' } } }));
  for (const value of ['false', 1, null]) {
    const res = await inputs(node, 'codehost-b', { values: { group_webhook: value } });
    t.equal(res.status, 400, JSON.stringify(value));
    t.equal((await json(res))['error'], 'invalid_body');
  }
  const ok = await inputs(node, 'codehost-b', { values: { group_webhook: true, enabled: false } });
  t.equal(ok.status, 201);
  const block = ((await active(node))['integrations'] as Json)['codehost_b'] as Json;
  t.same(block, { url: 'https://cb.example.test', enabled: false, provisioning: { group_webhook: true } });
  const text = await inputs(node, 'codehost-b', { values: { url: true } });
  t.equal(text.status, 400, 'a boolean for a field that is not a toggle');
});

t.test('a handle must name an existing seat; per-seat chat credentials land on that seat', async (t) => {
  const node = await startSetupNode(t, { tierA: KEYRING });
  await node.putDocument(company());
  const unknown = await inputs(node, 'chat', { values: { seat: 'nobody', bot_token: 'xoxb-1' } });
  t.equal(unknown.status, 400);
  t.match(await json(unknown), {
    error: 'validation_error',
    problems: [{ path: 'values.seat', kind: 'unknown_value' }],
  });
  const noSeat = await inputs(node, 'chat', { values: { bot_token: 'xoxb-1' } });
  t.match(await json(noSeat), {
    error: 'invalid_body',
    problems: [{ path: 'values.seat', kind: 'missing' }],
  });
  const res = await inputs(node, 'chat', {
    values: { enabled: true, seat: 'bo-agent', bot_token: 'xoxb-bo-agent-token', signing_secret: 'sign-bo' },
  });
  t.equal(res.status, 201, await res.clone().text());
  const doc = await active(node);
  t.same((doc['integrations'] as Json)['chat'], {}, 'the enable marker');
  const seat = (doc['roles'] as Json[]).find((r) => r['name'] === 'Bo Agent')!;
  t.same(seat['integrations'], {
    chat: {
      bot_token: '${SVC_CHAT_BO_AGENT_BOT_TOKEN}',
      signing_secret: '${SVC_CHAT_BO_AGENT_SIGNING_SECRET}',
    },
  });
  t.equal(stored(node, 'SVC_CHAT_BO_AGENT_BOT_TOKEN'), 'xoxb-bo-agent-token');
  const state = (await json(await node.call('GET', '/setup/integrations/chat'))) as Json & {
    requirements: Json[];
  };
  t.match(state, { configured: true, enabled: true, satisfied: true });
  t.match(
    state.requirements.find((r) => r['field'] === 'bot_token'),
    {
      present: true,
      resolved: 'store',
      seats: [
        { handle: 'chief-agent', present: false, value: null },
        { handle: 'bo-agent', present: true, value: '${SVC_CHAT_BO_AGENT_BOT_TOKEN}' },
      ],
    },
  );
  const off = await inputs(node, 'chat', { values: { enabled: false } });
  t.equal(off.status, 201);
  t.notOk('chat' in (((await active(node))['integrations'] as Json) ?? {}), 'false removes the marker');
});

t.test('a stale if_match is 409 revision_advanced and nothing is sealed or stored', async (t) => {
  const node = await startSetupNode(t, { tierA: KEYRING });
  const first = await node.putDocument(company());
  const second = await node.putDocument(company({ mission: 'Ship.' }));
  const res = await inputs(node, 'codehost-a', {
    if_match: first,
    values: { webhook_secret: 'fresh-secret-1' },
  });
  t.equal(res.status, 409);
  t.match(
    await json(res),
    { error: 'revision_advanced', stored_revision_id: null, active_revision_id: second },
    'no losing revision was stored: the active one is not named as if it were',
  );
  t.equal(stored(node, 'SVC_CODEHOST_A_WEBHOOK_SECRET'), undefined);
  t.equal((await json(await node.call('GET', '/setup/integrations')))['revision_id'], second);
  const quoted = await inputs(node, 'codehost-a', {
    if_match: `"${second}"`,
    values: { webhook_secret: 'fresh-secret-1' },
  });
  t.equal(quoted.status, 201, 'the ETag form of the current revision proceeds');
  const huge = await inputs(node, 'codehost-a', {
    if_match: `"${'a'.repeat(100_000)}"`,
    values: { webhook_secret: 'fresh-secret-2' },
  });
  t.equal(huge.status, 400, 'an if_match no revision id could be is refused as it stands');
  const refusal = await huge.text();
  t.match(JSON.parse(refusal), { error: 'invalid_body' });
  t.ok(refusal.length < 2_000, 'the refusal does not echo it back');
  t.equal(stored(node, 'SVC_CODEHOST_A_WEBHOOK_SECRET'), 'fresh-secret-1', 'nothing sealed');
});

t.test('a managed document refuses non-writers with 403 before reading the body', async (t) => {
  const node = await startSetupNode(t, {
    tierA: KEYRING,
    auth: {
      disabled: false,
      allowAnonymousRead: true,
      tokens: [
        { id: 'ops', token: 'ops-token-0123456789abcdef' },
        { id: 'ci', token: CI_TOKEN },
      ],
      companyWriters: ['ops'],
    },
  });
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
  t.equal(stored(node, 'SVC_CODEHOST_A_WEBHOOK_SECRET'), undefined);
  t.equal((await node.call('GET', '/setup/integrations', { auth: CI_TOKEN })).status, 200, 'reads stay open');
  t.equal(
    (await node.call('POST', '/setup/integrations/monitor/check', { auth: CI_TOKEN })).status,
    200,
    'so does check',
  );
  const writer = await inputs(node, 'codehost-a', { values: { webhook_secret: 'writer-secret-1' } });
  t.equal(writer.status, 201);
});

t.test(
  'a pasted credential is sealed without the whitespace around it, and measured without it',
  async (t) => {
    const node = await startSetupNode(t, { tierA: KEYRING });
    await node.putDocument(company());
    const padded = await inputs(node, 'monitor', { values: { webhook_token: ` ${'m'.repeat(25)}\n` } });
    t.equal(padded.status, 400, '25 characters and a newline are not 26');
    t.match(await json(padded), { error: 'validation_error', problems: [{ path: 'values.webhook_token' }] });
    const blank = await inputs(node, 'monitor', { values: { webhook_token: ' \n' } });
    t.match(await json(blank), { error: 'invalid_body', problems: [{ message: /cannot be empty/ }] });
    const res = await inputs(node, 'monitor', { values: { webhook_token: `${'m'.repeat(26)}\r\n` } });
    t.equal(res.status, 200);
    t.equal(stored(node, 'SVC_MONITOR_WEBHOOK_TOKEN'), 'm'.repeat(26), 'the token a header can carry');
  },
);

t.test('the monitor token is sealed in the store only and must be long enough', async (t) => {
  const node = await startSetupNode(t, { tierA: KEYRING });
  const first = await node.putDocument(company());
  const short = await inputs(node, 'monitor', { values: { webhook_token: 'too-short' } });
  t.equal(short.status, 400);
  const shortBody = await short.text();
  t.match(shortBody, 'validation_error');
  t.notMatch(shortBody, 'too-short', 'the refusal never quotes the value');
  const res = await inputs(node, 'monitor', { generate: ['webhook_token'] });
  t.equal(res.status, 200, 'nothing in the document changes');
  t.match(await json(res), {
    revision_id: null,
    sealed: [{ field: 'webhook_token', secret_name: 'SVC_MONITOR_WEBHOOK_TOKEN' }],
  });
  t.ok((stored(node, 'SVC_MONITOR_WEBHOOK_TOKEN') ?? '').length >= 26);
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
    const res = await inputs(node, 'wiki', { generate: ['webhook_token'] });
    t.equal(res.status, 200, 'nothing in the document changes');
    t.match(await json(res), {
      revision_id: null,
      sealed: [{ field: 'webhook_token', secret_name: 'SVC_WIKI_WEBHOOK_TOKEN', generated: true }],
    });
    t.match(stored(node, 'SVC_WIKI_WEBHOOK_TOKEN'), /^[A-Za-z0-9_-]{43}$/);
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

t.test('a document the writer refuses seals nothing', async (t) => {
  const node = await startSetupNode(t, { tierA: KEYRING });
  await node.putDocument(company({ integrations: { wiki: { url: 'https://wiki.example.test' } } }));
  const res = await inputs(node, 'tracker-b', {
    values: { url: 'https://tb.example.test', workspace: 'w', token: 'tb-token-refused-1' },
  });
  t.equal(res.status, 400);
  t.equal((await json(res))['error'], 'validation_error', 'wiki and tracker-b are mutually exclusive');
  t.equal(stored(node, 'SVC_TRACKER_B_TOKEN'), undefined);
  const choice = await inputs(node, 'codehost-b', { values: { access_level: 'emperor' } });
  t.match(await json(choice), { error: 'validation_error', problems: [{ path: 'values.access_level' }] });
  const days = await inputs(node, 'tracker-b', { values: { token_expiry_days: '-3' } });
  t.match(await json(days), { error: 'validation_error' });
});

t.test('before the first revision a document field is 409 no_active_revision', async (t) => {
  const node = await startSetupNode(t, { tierA: KEYRING });
  const res = await inputs(node, 'codehost-a', { values: { webhook_secret: 'abc' } });
  t.equal(res.status, 409);
  t.equal((await json(res))['error'], 'no_active_revision');
  t.equal(stored(node, 'SVC_CODEHOST_A_WEBHOOK_SECRET'), undefined);
});

t.test(
  "racing writes of one credential: the losers answer 409 and the store holds the winner's value",
  async (t) => {
    const node = await startSetupNode(t, { tierA: KEYRING });
    await node.putDocument(company());
    // The document already references the name, so every racer seals under the same one.
    const seed = await inputs(node, 'wiki', { values: { url: 'https://wiki.example.test/0', token: 'wiki-token-0' } }); // prettier-ignore
    t.equal(seed.status, 201);
    const answers = await Promise.all(
      [1, 2, 3, 4, 5, 6].map((i) =>
        inputs(node, 'wiki', { values: { url: `https://wiki.example.test/${i}`, token: `wiki-token-${i}` } }),
      ),
    );
    const won = answers.flatMap((res, i) => (res.status === 201 ? [i + 1] : []));
    t.ok(won.length >= 1, 'at least one write is stored');
    for (const res of answers)
      t.ok(res.status === 201 || res.status === 409, `201 or 409, not ${res.status}`);
    const url = ((await active(node))['integrations'] as Json & { wiki: Json })['wiki']['url'] as string;
    const winner = Number(url.slice(url.lastIndexOf('/') + 1));
    t.ok(won.includes(winner), "the active url is a winner's");
    t.equal(stored(node, 'SVC_WIKI_TOKEN'), `wiki-token-${winner}`, "the token is the same winner's");
  },
);

t.test('a credential over the secret limit is 400 and nothing is sealed', async (t) => {
  const node = await startSetupNode(t, { tierA: KEYRING });
  await node.putDocument(company());
  const res = await inputs(node, 'codehost-a', { values: { webhook_secret: 'x'.repeat(64 * 1024 + 1) } });
  t.equal(res.status, 400);
  t.match(await json(res), {
    error: 'validation_error',
    problems: [
      { path: 'values.webhook_secret', kind: 'out_of_range', message: 'a secret holds at most 65536 bytes' },
    ],
  });
  t.equal(stored(node, 'SVC_CODEHOST_A_WEBHOOK_SECRET'), undefined);
});

/** How many revisions the node has stored. */
const revisions = async (node: SetupNode): Promise<number> =>
  (await json(await node.call('GET', '/config/revisions')))['total'] as number;

t.test(
  'a per-seat credential for a blank seat or a human seat is 400 naming `seat`, and nothing is stored',
  async (t) => {
    const node = await startSetupNode(t, { tierA: KEYRING });
    await node.putDocument(company());
    for (const seat of ['', '   ']) {
      const res = await inputs(node, 'chat', { values: { seat, bot_token: 'xoxb-blank-seat' } });
      t.equal(res.status, 400, JSON.stringify(seat));
      t.match(await json(res), {
        error: 'invalid_body',
        problems: [{ path: 'values.seat', kind: 'missing' }],
      });
    }
    const human = await inputs(node, 'chat', { values: { seat: 'hanna-lee', bot_token: 'xoxb-human-seat' } });
    t.equal(human.status, 400);
    t.match(await json(human), {
      error: 'validation_error',
      problems: [{ path: 'values.seat', kind: 'unknown_value', message: /agent seat/ }],
    });
    t.equal(await revisions(node), 1, 'no revision was stored');
    t.equal(stored(node, 'SVC_CHAT_HANNA_LEE_BOT_TOKEN'), undefined, 'nothing was sealed');
  },
);

t.test(
  'a credential the document references under a name too long for the store is 400 and nothing is stored',
  async (t) => {
    const node = await startSetupNode(t, { tierA: KEYRING });
    const name = 'A'.repeat(129);
    await node.putDocument(
      company({ integrations: { tracker_b: { url: 'https://tb.example.test', token: `\${${name}}` } } }),
    );
    const res = await inputs(node, 'tracker-b', { values: { token: 'tb-token-long-name' } });
    t.equal(res.status, 400);
    t.match(await json(res), {
      error: 'validation_error',
      problems: [{ path: 'values.token', kind: 'out_of_range', message: /128 characters/ }],
    });
    t.equal(await revisions(node), 1, 'no revision was stored');
    t.notMatch(node.rawLogs(), 'tb-token-long-name');
  },
);

t.test(
  'a non-writer on a managed document, or an unknown kind, is refused before a slow body arrives',
  async (t) => {
    const node = await startSetupNode(t, {
      tierA: KEYRING,
      auth: {
        disabled: false,
        allowAnonymousRead: true,
        tokens: [
          { id: 'ops', token: 'ops-token-0123456789abcdef' },
          { id: 'ci', token: CI_TOKEN },
        ],
        companyWriters: ['ops'],
      },
    });
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
    t.equal(stored(node, 'SVC_CODEHOST_A_WEBHOOK_SECRET'), undefined);
  },
);

t.test(
  'an inputs body naming more fields than any kind has, or larger than 1 MiB, is one short 400',
  async (t) => {
    const node = await startSetupNode(t, { tierA: KEYRING });
    await node.putDocument(company());
    const many = Array.from({ length: 65 }, (_, i) => `f${i}`);
    for (const body of [
      { generate: many },
      { generate: many.map(() => 1) },
      { values: Object.fromEntries(many.map((f) => [f, ''])) },
      { values: Object.fromEntries(many.map((f) => [f, 7])) },
    ]) {
      const res = await inputs(node, 'chat', body);
      const text = await res.text();
      t.equal(res.status, 400);
      t.ok(text.length < 2048, `a short answer (${text.length} bytes)`);
      const answer = JSON.parse(text) as Json & { problems: Json[] };
      t.equal(answer['error'], 'invalid_body');
      t.equal(answer.problems.length, 1, 'one problem');
      t.match(answer.problems[0], { kind: 'out_of_range', message: /at most 64/ });
    }
    const big = await inputs(node, 'codehost-a', { values: { webhook_secret: 'x'.repeat(1024 * 1024) } });
    t.equal(big.status, 400);
    t.match(await json(big), { error: 'unreadable_body', max_bytes: 1024 * 1024 });
    t.equal(await revisions(node), 1, 'no revision was stored');
  },
);
