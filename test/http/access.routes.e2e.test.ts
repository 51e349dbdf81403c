import { pino } from 'pino';
import t, { type Test } from 'tap';
import type { AuthSettings } from '../../http/index.js';
import { accessRoutesFor } from '../../scripts/access-wiring.js';
import { startConfiguration } from '../../scripts/config-wiring.js';
import { startSecrets } from '../../scripts/secrets-wiring.js';
import { bootedNode } from './fixtures/booted-node.js';
import { CI, OPS, openAuth, startHarness } from './fixtures/gateway-harness.js';
import { keyringYaml } from './fixtures/secrets-node.js';

type Json = Record<string, unknown>;

function document(): Json {
  return {
    name: 'Acme',
    providers: {
      llm: {
        main: {
          type: 'anthropic',
          model: 'claude-sonnet-4-5',
          api_keys: ['${MAIN_KEY}', 'sk-literal-pool-key-77'],
        },
        spare: { type: 'openai', model: 'gpt-5' },
      },
    },
    roles: [
      { name: 'Chief Agent' },
      {
        name: 'Ada Ops',
        kind: 'human',
        contact: { operator_id: 'ops', chat_user_id: 'U1' },
        email: 'ada@example.test',
      },
      { name: 'Ref Person', kind: 'human', contact: { operator_id: '${PERSON_TOKEN_ID}' } },
      { name: 'Ghost Person', kind: 'human', contact: { operator_id: 'no-such-token' } },
      { name: 'Plain Person', kind: 'human', contact: { chat_user_id: 'U9' }, availability: 'mornings' },
    ],
  };
}

async function start(t: Test, auth: AuthSettings = openAuth) {
  const logger = pino({ level: 'silent' });
  const { bus, catalogue, config, node } = await bootedNode(t, {
    logger,
    tierA: keyringYaml('k1', ['k1', 1]),
  });
  const secrets = await startSecrets({ bus, bucket: catalogue.secrets, config, logger, env: {} });
  t.teardown(() => secrets.stop());
  const configuration = await startConfiguration({ bus, coord: catalogue.coord, node, config, logger });
  t.teardown(() => configuration.stop());
  const harness = await startHarness({
    auth,
    routes: [
      ...configuration.routes(auth),
      ...secrets.routes(auth),
      ...accessRoutesFor({ auth, configuration, secrets }),
    ],
  });
  t.teardown(() => harness.gw.close());
  const call = async (method: string, path: string, auth: string | null = OPS, body?: string) => {
    const res = await fetch(`${harness.base}${path}`, {
      method,
      headers: {
        ...(auth ? { authorization: auth } : {}),
        'content-type': 'application/json',
        'x-summary': 's',
      },
      ...(body !== undefined ? { body } : {}),
    });
    const text = await res.text();
    return { status: res.status, text, json: (text ? JSON.parse(text) : {}) as Json };
  };
  return { call, harness };
}

t.test(
  '/access lists token ids, the person each acts as, human seats and their binding; never a token value',
  async (t) => {
    const { call } = await start(t);
    t.equal((await call('GET', '/access', null)).status, 401, 'a token is always required');
    t.equal((await call('PUT', '/config', OPS, JSON.stringify(document()))).status, 201);
    const answer = await call('GET', '/access');
    t.equal(answer.status, 200);
    for (const token of openAuth.tokens) t.notOk(answer.text.includes(token.token), 'no token value');
    t.same(answer.json['auth'], { guard: 'on', allow_anonymous_read: true, tokens: 2, managed: false });
    t.equal(answer.json['company_writers'], null);
    t.same(answer.json['tokens'], [
      { id: 'ops', acts_as: { handle: 'ada-ops', name: 'Ada Ops', unit: null }, company_writer: true },
      { id: 'ci', acts_as: null, company_writer: true },
    ]);
    const people = answer.json['people'] as Json[];
    t.same(
      people.map((p) => [p['handle'], p['binding'], p['operator_id']]),
      [
        ['ada-ops', 'bound', 'ops'],
        ['ref-person', 'unset', null],
        ['ghost-person', 'unknown_token', 'no-such-token'],
        ['plain-person', 'none', null],
      ],
    );
    t.match(people[0], { email: 'ada@example.test', contact: { operator_id: 'ops', chat_user_id: 'U1' } });
    t.match(people[1], { contact: { operator_id: '${PERSON_TOKEN_ID}' } }, 'a reference is shown as written');
    t.equal(people[3]!['availability'], 'mornings');
  },
);

t.test(
  'an operator_id reference resolves from the secret store; two seats naming one token both read conflict',
  async (t) => {
    const { call } = await start(t);
    await call('PUT', '/config', OPS, JSON.stringify(document()));
    t.equal((await call('PUT', '/secrets/PERSON_TOKEN_ID', OPS, 'ci')).status, 200);
    let answer = await call('GET', '/access');
    t.same((answer.json['tokens'] as Json[])[1], {
      id: 'ci',
      acts_as: { handle: 'ref-person', name: 'Ref Person', unit: null },
      company_writer: true,
    });
    await call('PUT', '/secrets/PERSON_TOKEN_ID', OPS, 'ops');
    answer = await call('GET', '/access');
    const bindings = (answer.json['people'] as Json[]).map((p) => p['binding']);
    t.same(bindings.slice(0, 2), ['conflict', 'conflict']);
    t.equal((answer.json['tokens'] as Json[])[0]!['acts_as'], null, 'a contested token acts as nobody');
    // A reference holding something else than a token id (say, a token's value) is never echoed.
    await call('PUT', '/secrets/PERSON_TOKEN_ID', OPS, 'tok-value-SECRET-0123');
    answer = await call('GET', '/access');
    t.notMatch(answer.text, 'tok-value-SECRET-0123');
    t.match((answer.json['people'] as Json[])[1], { binding: 'unknown_token', operator_id: null });
  },
);

t.test('/viewer answers the caller: bound seat, unbound token, or no credential at all', async (t) => {
  const auth: AuthSettings = { ...openAuth, companyWriters: ['ops'] };
  const { call } = await start(t, auth);
  t.same((await call('GET', '/viewer', null)).json, {
    operator_id: null, operator: false, seat: null, acts: [], config_writer: false, config_managed_by: ['ops'],
  }); // prettier-ignore
  t.same((await call('GET', '/viewer', CI)).json['seat'], null, 'before any document nobody is bound');
  await call('PUT', '/config', OPS, JSON.stringify(document()));
  t.same((await call('GET', '/viewer')).json, {
    operator_id: 'ops', operator: true, seat: { handle: 'ada-ops', name: 'Ada Ops', unit: null }, acts: [],
    config_writer: true, config_managed_by: ['ops'],
  }); // prettier-ignore
  t.same((await call('GET', '/viewer', CI)).json, {
    operator_id: 'ci', operator: true, seat: null, acts: [], config_writer: false, config_managed_by: ['ops'],
  }, 'an unbound token is an ordinary state'); // prettier-ignore
  t.equal((await call('GET', '/viewer', 'Bearer wrong')).status, 401);
  t.equal((await call('GET', '/access', CI)).json['company_writers']?.toString(), 'ops');
});

t.test('/credential-pool names keys by reference and never by value', async (t) => {
  const { call } = await start(t);
  t.equal((await call('GET', '/credential-pool', null)).status, 401);
  t.same(
    (await call('GET', '/credential-pool')).json,
    { providers: {} },
    'nothing before the first revision',
  );
  await call('PUT', '/config', OPS, JSON.stringify(document()));
  const answer = await call('GET', '/credential-pool');
  t.notMatch(answer.text, /sk-literal-pool-key-77/);
  const idle = { cooling_until: null, reason: null, in_flight: 0, failures: 0 };
  t.same(answer.json, {
    providers: {
      main: {
        provider: 'main',
        type: 'anthropic',
        model: 'claude-sonnet-4-5',
        keys: [
          { ref: 'MAIN_KEY', index: 0, ...idle },
          { ref: 'api_keys[1]', index: 1, ...idle },
        ],
      },
      spare: {
        provider: 'spare',
        type: 'openai',
        model: 'gpt-5',
        keys: [{ ref: 'OPENAI_API_KEY', index: 0, ...idle }],
      },
    },
  });
});
