// Setup inputs: bodies refused for what they carry, each naming the field and sealing nothing.
import t from 'tap';
import {
  activeDocument,
  company,
  json,
  KEYRING,
  postInputs,
  revisionCount,
  startSetupNode,
  storedSecret,
  type Json,
} from './fixtures/setup-node.js';

t.test('a field both given and generated is 400, and so is a field that cannot be generated', async (t) => {
  const node = await startSetupNode(t, { tierA: KEYRING });
  await node.putDocument(company());
  const both = await postInputs(node, 'codehost-a', {
    values: { webhook_secret: 'given-secret-value' },
    generate: ['webhook_secret'],
  });
  t.equal(both.status, 400);
  t.match(await json(both), {
    error: 'invalid_body',
    problems: [{ path: 'values.webhook_secret', kind: 'conflict' }],
  });
  t.equal(storedSecret(node, 'SVC_CODEHOST_A_WEBHOOK_SECRET'), undefined, 'nothing sealed');
  const notMintable = await postInputs(node, 'tracker-b', { generate: ['token'] });
  t.equal(notMintable.status, 400);
  const unknown = await postInputs(node, 'tracker-b', { values: { colour: 'blue' } });
  t.match(await json(unknown), { error: 'invalid_body', problems: [{ kind: 'unknown_field' }] });
  const extraKey = await postInputs(node, 'tracker-b', { values: {}, extra: 1, more: 2 });
  t.equal(extraKey.status, 400);
  t.same(
    ((await json(extraKey))['problems'] as Json[]).map((p) => [p['path'], p['segments'], p['kind']]),
    [
      ['extra', ['extra'], 'unknown_field'],
      ['more', ['more'], 'unknown_field'],
    ],
    'each unknown key is a problem at its own path',
  );
  const notJson = await node.call('POST', '/setup/integrations/tracker-b/inputs', { body: '{nope' });
  t.match(await json(notJson), { error: 'invalid_body' });
  for (const empty of [{}, { values: {} }, { values: {}, generate: [] }]) {
    const none = await postInputs(node, 'tracker-b', empty);
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
    t.equal(storedSecret(node, 'SVC_TRACKER_B_TOKEN'), undefined, 'nothing sealed');
  },
);

t.test('a toggle must be a JSON boolean', async (t) => {
  const node = await startSetupNode(t);
  await node.putDocument(company({ integrations: { codehost_b: { url: 'https://cb.example.test' } } }));
  for (const value of ['false', 1, null]) {
    const res = await postInputs(node, 'codehost-b', { values: { group_webhook: value } });
    t.equal(res.status, 400, JSON.stringify(value));
    t.equal((await json(res))['error'], 'invalid_body');
  }
  const ok = await postInputs(node, 'codehost-b', { values: { group_webhook: true, enabled: false } });
  t.equal(ok.status, 201);
  const block = ((await activeDocument(node))['integrations'] as Json)['codehost_b'] as Json;
  t.same(block, { url: 'https://cb.example.test', enabled: false, provisioning: { group_webhook: true } });
  const text = await postInputs(node, 'codehost-b', { values: { url: true } });
  t.equal(text.status, 400, 'a boolean for a field that is not a toggle');
});

t.test('a handle must name an existing seat; per-seat chat credentials land on that seat', async (t) => {
  const node = await startSetupNode(t, { tierA: KEYRING });
  await node.putDocument(company());
  const unknown = await postInputs(node, 'chat', { values: { seat: 'nobody', bot_token: 'xoxb-1' } });
  t.equal(unknown.status, 400);
  t.match(await json(unknown), {
    error: 'validation_error',
    problems: [{ path: 'values.seat', kind: 'unknown_value' }],
  });
  const noSeat = await postInputs(node, 'chat', { values: { bot_token: 'xoxb-1' } });
  t.match(await json(noSeat), {
    error: 'invalid_body',
    problems: [{ path: 'values.seat', kind: 'missing' }],
  });
  const res = await postInputs(node, 'chat', {
    values: { enabled: true, seat: 'bo-agent', bot_token: 'xoxb-bo-agent-token', signing_secret: 'sign-bo' },
  });
  t.equal(res.status, 201, await res.clone().text());
  const doc = await activeDocument(node);
  t.same((doc['integrations'] as Json)['chat'], {}, 'the enable marker');
  const seat = (doc['roles'] as Json[]).find((r) => r['name'] === 'Bo Agent')!;
  t.same(seat['integrations'], {
    chat: {
      bot_token: '${SVC_CHAT_BO_AGENT_BOT_TOKEN}',
      signing_secret: '${SVC_CHAT_BO_AGENT_SIGNING_SECRET}',
    },
  });
  t.equal(storedSecret(node, 'SVC_CHAT_BO_AGENT_BOT_TOKEN'), 'xoxb-bo-agent-token');
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
  const off = await postInputs(node, 'chat', { values: { enabled: false } });
  t.equal(off.status, 201);
  t.notOk(
    'chat' in (((await activeDocument(node))['integrations'] as Json) ?? {}),
    'false removes the marker',
  );
});

t.test('a credential over the secret limit is 400 and nothing is sealed', async (t) => {
  const node = await startSetupNode(t, { tierA: KEYRING });
  await node.putDocument(company());
  const res = await postInputs(node, 'codehost-a', { values: { webhook_secret: 'x'.repeat(64 * 1024 + 1) } });
  t.equal(res.status, 400);
  t.match(await json(res), {
    error: 'validation_error',
    problems: [
      { path: 'values.webhook_secret', kind: 'out_of_range', message: 'a secret holds at most 65536 bytes' },
    ],
  });
  t.equal(storedSecret(node, 'SVC_CODEHOST_A_WEBHOOK_SECRET'), undefined);
});

t.test(
  'a per-seat credential for a blank seat or a human seat is 400 naming `seat`, and nothing is stored',
  async (t) => {
    const node = await startSetupNode(t, { tierA: KEYRING });
    await node.putDocument(company());
    for (const seat of ['', '   ']) {
      const res = await postInputs(node, 'chat', { values: { seat, bot_token: 'xoxb-blank-seat' } });
      t.equal(res.status, 400, JSON.stringify(seat));
      t.match(await json(res), {
        error: 'invalid_body',
        problems: [{ path: 'values.seat', kind: 'missing' }],
      });
    }
    const human = await postInputs(node, 'chat', {
      values: { seat: 'hanna-lee', bot_token: 'xoxb-human-seat' },
    });
    t.equal(human.status, 400);
    t.match(await json(human), {
      error: 'validation_error',
      problems: [{ path: 'values.seat', kind: 'unknown_value', message: /agent seat/ }],
    });
    t.equal(await revisionCount(node), 1, 'no revision was stored');
    t.equal(storedSecret(node, 'SVC_CHAT_HANNA_LEE_BOT_TOKEN'), undefined, 'nothing was sealed');
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
    const res = await postInputs(node, 'tracker-b', { values: { token: 'tb-token-long-name' } });
    t.equal(res.status, 400);
    t.match(await json(res), {
      error: 'validation_error',
      problems: [{ path: 'values.token', kind: 'out_of_range', message: /128 characters/ }],
    });
    t.equal(await revisionCount(node), 1, 'no revision was stored');
    t.notMatch(node.rawLogs(), 'tb-token-long-name');
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
      const res = await postInputs(node, 'chat', body);
      const text = await res.text();
      t.equal(res.status, 400);
      t.ok(text.length < 2048, `a short answer (${text.length} bytes)`);
      const answer = JSON.parse(text) as Json & { problems: Json[] };
      t.equal(answer['error'], 'invalid_body');
      t.equal(answer.problems.length, 1, 'one problem');
      t.match(answer.problems[0], { kind: 'out_of_range', message: /at most 64/ });
    }
    const big = await postInputs(node, 'codehost-a', { values: { webhook_secret: 'x'.repeat(1024 * 1024) } });
    t.equal(big.status, 413);
    t.match(await json(big), { error: 'body_too_large', max_bytes: 1024 * 1024 });
    t.equal(await revisionCount(node), 1, 'no revision was stored');
  },
);
