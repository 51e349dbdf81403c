/* eslint-disable @typescript-eslint/no-unsafe-call -- tests edit untyped documents freely */
import t, { type Test } from 'tap';
import { baseCompany, runnable, summary, write, type Doc } from '../fixtures/company/documents.js';

/** Each admission rule refuses a new write and only warns when a stored revision is reloaded. */
const admission = (t: Test, doc: Doc, expected: string): void => {
  const fresh = write(doc);
  t.notOk(fresh.valid, 'a write is refused');
  t.same(summary(fresh), [expected]);
  const stored = runnable(doc);
  t.ok(stored.valid, 'a reload runs it');
  t.same(
    stored.warnings.map((w) => `${w.path} ${w.kind}`),
    [`${expected.split(' ')[0]!} admission`],
  );
  t.equal(stored.warnings[0]?.message, fresh.problems[0]?.message);
  t.ok(stored.document, 'the runnable document is returned');
};

t.test(
  'an org budget below a seat budget is written (an emergency org cap): no rule refuses it',
  async (t) => {
    const doc = baseCompany();
    doc['token_budget'] = 1000;
    doc['roles'][0]['token_budget'] = 5000;
    const result = write(doc);
    t.ok(result.valid);
    t.same(summary(result), []);
  },
);

t.test('A2: an enabled lead-targeted schedule whose scope has no lead', async (t) => {
  const doc = baseCompany();
  doc['units'].push({
    name: 'Orphans',
    type: 'team',
    schedules: [{ name: 's', cron: '@daily', task: 't', target: 'lead' }],
  });
  admission(t, doc, 'units[1].schedules[0].target conflict');
});

t.test('A3: mcp_env naming a tool server that does not exist', async (t) => {
  const doc = baseCompany();
  doc['mcp_servers'] = [{ name: 'docs', command: 'npx', shared: false }];
  doc['roles'][0]['mcp_env'] = { docs: { DOCS_TOKEN: '${DOCS_TOKEN}' } };
  t.ok(write(doc).valid);
  doc['units'][0]['children'][0]['mcp_env'] = { gone: { X: 'y' } };
  admission(t, doc, 'units[0].children[0].mcp_env.gone unknown_value');
});

t.test('A4: an unpinned agent with no provider to resolve while providers exist', async (t) => {
  const doc = baseCompany();
  doc['providers']['llm_order'] = [];
  doc['roles'] = [];
  doc['units'][0]['children'][0]['roles'] = [{ name: 'Cy Agent', llm: 'main' }, { name: 'Bo Agent' }];
  admission(t, doc, 'units[0].children[0].roles[1].llm missing');
  delete doc['providers']['llm_order'];
  t.ok(write(doc).valid, 'without llm_order every provider is tried in order');
});

t.test('A5: an empty credential', async (t) => {
  const doc = baseCompany();
  doc['integrations'] = { codehost_a: { webhook_secret: '' } };
  admission(t, doc, 'integrations.codehost_a.webhook_secret out_of_range');
  doc['integrations'] = { codehost_a: { webhook_secret: '${UNSET_IS_FINE}' } };
  t.ok(write(doc).valid);
});

t.test("A9: a vendor id outside its vendor's shape", async (t) => {
  const doc = baseCompany();
  doc['integrations'] = { wiki: { cloud_id: '../../admin' } };
  admission(t, doc, 'integrations.wiki.cloud_id shape');
  doc['integrations'] = { tracker_a: { cloud_id: 'a'.repeat(101) } };
  admission(t, doc, 'integrations.tracker_a.cloud_id out_of_range');
  doc['integrations'] = { codehost_b: { url: 'https://cb.example', provisioning: { group: 'acme team' } } };
  admission(t, doc, 'integrations.codehost_b.provisioning.group shape');
  doc['integrations'] = { tracker_b: { url: 'https://tb.example', workspace: 'a?b' } };
  admission(t, doc, 'integrations.tracker_b.workspace shape');
  doc['integrations'] = { relay_app_id: 'app\u0007' };
  admission(t, doc, 'integrations.relay_app_id shape');
  doc['integrations'] = { tracker_b: { url: 'https://tb.example', workspace: 'w', provisioning: { username_prefix: 'a/../' } } }; // prettier-ignore
  admission(t, doc, 'integrations.tracker_b.provisioning.username_prefix shape');
  doc['integrations'] = { tracker_b: { url: 'https://tb.example', workspace: 'w', provisioning: { username_prefix: 'a'.repeat(65) } } }; // prettier-ignore
  admission(t, doc, 'integrations.tracker_b.provisioning.username_prefix out_of_range');
  for (const integrations of [
    {
      wiki: { cloud_id: 'a436116f-02ce-4520-8fbb-7301462a1674' },
      relay_app_id: 'ari:cloud:ecosystem::app/1b',
    },
    { wiki: { cloud_id: '${CLOUD_ID}' } },
    { codehost_b: { url: 'https://cb.example', provisioning: { group: 'acme/platform.team' } } },
    { tracker_b: { url: 'https://tb.example', workspace: 'acme_ws-1' } },
    {
      tracker_b: {
        url: 'https://tb.example',
        workspace: 'w',
        provisioning: { username_prefix: 'agent.bot_-' },
      },
    },
    {
      tracker_b: {
        url: 'https://tb.example',
        workspace: 'w',
        provisioning: { username_prefix: '${TB_PREFIX}' },
      },
    },
  ]) {
    doc['integrations'] = integrations;
    t.ok(write(doc).valid, JSON.stringify(integrations));
  }
});

t.test(
  'A10: an integration or remote tool-server URL carrying a login (a stored one still loads)',
  async (t) => {
    const doc = baseCompany();
    doc['integrations'] = { wiki: { url: 'https://bot:hunter2@wiki.example' } };
    admission(t, doc, 'integrations.wiki.url invalid');
    t.notMatch(JSON.stringify(write(doc).problems), /hunter2/, 'the password is never quoted');
    doc['integrations'] = {};
    doc['mcp_servers'] = [{ name: 'remote', url: 'https://u:pw@mcp.example/a' }];
    admission(t, doc, 'mcp_servers[0].url invalid');
  },
);

t.test(
  'A10: a fetched URL carrying a credential in its query (a stored one still loads; a ${VAR} is fine)',
  async (t) => {
    const doc = baseCompany();
    doc['integrations'] = { codehost_b: { url: 'https://git.example/api?private_token=glpat-c4n4ry' } };
    admission(t, doc, 'integrations.codehost_b.url invalid');
    const message = write(doc).problems[0]?.message ?? '';
    t.match(message, /private_token/, 'the parameter is named');
    t.match(message, /\$\{VAR\}/, 'the hint names a reference');
    t.match(message, /token field/, 'the hint names the block’s own field');
    t.notMatch(message, /c4n4ry/, 'the value is never quoted');
    doc['integrations'] = {};
    for (const url of [
      'https://mcp.example/a?ACCESS_TOKEN=c4n4ry',
      'https://mcp.example/a?x=1&api_key=c4n4ry',
      'https://mcp.example/a?sig=c4n4ry',
    ]) {
      doc['mcp_servers'] = [{ name: 'remote', url }];
      admission(t, doc, 'mcp_servers[0].url invalid');
    }
    doc['mcp_servers'] = [{ name: 'remote', url: 'https://mcp.example/a?token=${MCP_TOKEN}&page=2' }];
    t.ok(write(doc).valid, 'a reference in the query is how to write it');
    doc['mcp_servers'] = [];
    doc['providers']['llm']['local'] = {
      type: 'openai-compatible',
      model: 'm',
      base_url: 'https://llm.example/v1?key=c4n4ry',
    };
    admission(t, doc, 'providers.llm.local.base_url invalid');
  },
);

t.test('A11: a notification batching window longer than an hour', async (t) => {
  const doc = baseCompany();
  for (const seconds of [3601, 1e20]) {
    doc['notification_coalesce_window_seconds'] = seconds;
    admission(t, doc, 'notification_coalesce_window_seconds out_of_range');
    t.match(write(doc).problems[0]?.message, /at most 3600/);
  }
  doc['notification_coalesce_window_seconds'] = 3600;
  t.ok(write(doc).valid, 'an hour is the most');
});

t.test('A16: a notification rate limit that is not a whole number of notifications', async (t) => {
  const doc = baseCompany();
  for (const limit of [2.5, 0.5]) {
    doc['notification_rate_limit'] = limit;
    admission(t, doc, 'notification_rate_limit shape');
    t.match(write(doc).problems[0]?.message, /whole number/);
  }
  for (const limit of [0, 3]) {
    doc['notification_rate_limit'] = limit;
    t.ok(write(doc).valid, `${limit} is written`);
  }
});

t.test('A21: a provider entry listing one key twice, as a reference or a literal', async (t) => {
  const doc = baseCompany();
  doc['providers']['llm']['main']['api_keys'] = ['${ANTHROPIC_KEY}', '${ANTHROPIC_KEY}'];
  admission(t, doc, 'providers.llm.main.api_keys[1] conflict');
  t.match(write(doc).problems[0]?.message, /\$\{ANTHROPIC_KEY\} is already listed at api_keys\[0\]/);

  doc['providers']['llm']['main']['api_keys'] = [
    '${K}',
    'sk-literal-1',
    '${OTHER}',
    ' ${K} ',
    'sk-literal-1',
  ];
  doc['providers']['llm']['backup'] = { type: 'openai', model: 'm', api_keys: ['${K}'] };
  const result = write(doc);
  t.same(
    summary(result),
    ['providers.llm.main.api_keys[3] conflict', 'providers.llm.main.api_keys[4] conflict'],
    'each repeat at its place, written with spaces too; another entry may hold the same key',
  );
  t.match(result.problems[1]?.message, /the same key is already listed at api_keys\[1\]/);
  t.notMatch(JSON.stringify(result), /sk-literal-1/, 'a literal key is never quoted');
});

t.test('hard rules refuse in runnable mode too', async (t) => {
  const doc = baseCompany();
  doc['integrations'] = { wiki: { url: 'https://w.example' }, tracker_b: { url: 'https://t.example' } };
  t.same(summary(runnable(doc)), ['integrations.tracker_b conflict']);
});
