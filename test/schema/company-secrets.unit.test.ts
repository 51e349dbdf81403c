import t from 'tap';
import { companyJsonSchema, isSecretPath, knownKeysAt } from '../../schema/company/index.js';
import { baseCompany, write } from '../fixtures/company/documents.js';

t.test('secret leaves of write rule 7 are recognised by position', async (t) => {
  const secret: (string | number)[][] = [
    ['providers', 'llm', 'main', 'api_keys', 0],
    ['providers', 'llm', 'other', 'api_keys', 3],
    ['providers', 'embeddings', 'api_key'],
    ['integrations', 'tracker_a', 'token'],
    ['integrations', 'tracker_a', 'webhook_secret'],
    ['integrations', 'wiki', 'token'],
    ['integrations', 'codehost_a', 'webhook_secret'],
    ['integrations', 'codehost_b', 'signing_secret'],
    ['integrations', 'codehost_b', 'token'],
    ['integrations', 'tracker_b', 'token'],
    ['integrations', 'tracker_b', 'webhook_secret'],
    ['roles', 0, 'integrations', 'chat', 'bot_token'],
    ['roles', 0, 'integrations', 'chat', 'signing_secret'],
    ['roles', 2, 'integrations', 'codehost_b', 'token'],
    ['roles', 2, 'integrations', 'codehost_a', 'private_key'],
    ['roles', 0, 'mcp_env', 'docs', 'ANY_NAME_AT_ALL'],
    ['units', 0, 'mcp_env', 'docs', 'PLAIN'],
    ['units', 0, 'children', 1, 'children', 0, 'mcp_env', 'docs', 'X'],
    ['units', 0, 'children', 1, 'roles', 4, 'mcp_env', 'docs', 'X'],
    ['units', 0, 'roles', 0, 'integrations', 'chat', 'bot_token'],
    ['units', 0, 'roles', 0, 'sandbox', 'api_key'],
    ['roles', 0, 'sandbox', 'env', 'GITHUB_TOKEN'],
    ['mcp_servers', 0, 'env', 'SEARCH_API_KEY'],
    ['mcp_servers', 0, 'env', 'db_password'],
    ['mcp_servers', 1, 'headers', 'Authorization'],
    ['mcp_servers', 1, 'headers', 'X-Auth-Token'],
    ['mcp_servers', 1, 'env', 'AWS_SECRET_ACCESS_KEY'],
    ['mcp_servers', 1, 'env', 'GOOGLE_APPLICATION_CREDENTIALS'],
    ['mcp_servers', 1, 'env', 'GITHUB_PAT'],
    ['mcp_servers', 1, 'env', 'pat'],
    ['mcp_servers', 1, 'env', 'SENTRY_DSN'],
    ['notification_transports', 'ops', 'url'],
    ['notification_transports', 'ops', 'secret'],
    ['notification_transports', 'oncall', 'routing_key'],
    ['notification_transports', 'mail', 'password'],
    ['notification_transports', 'phones', 'auth_token'],
  ];
  for (const path of secret) t.ok(isSecretPath(path), path.join('.'));
  const plain: (string | number)[][] = [
    ['name'],
    ['providers', 'llm', 'main', 'model'],
    ['providers', 'llm', 'main', 'api_keys'],
    ['providers', 'embeddings', 'model'],
    ['integrations', 'tracker_a', 'email'],
    ['integrations', 'tracker_a', 'url'],
    ['integrations', 'relay_app_id'],
    ['integrations', 'codehost_b', 'provisioning', 'token_scopes'],
    ['roles', 0, 'name'],
    ['roles', 0, 'contact', 'operator_id'],
    ['roles', 0, 'mcp_env', 'docs'],
    ['roles', 0, 'integrations', 'codehost_a', 'app_slug'],
    ['units', 0, 'integrations', 'wiki', 'space'],
    ['mcp_servers', 0, 'env', 'SEARCH_INDEX'],
    ['mcp_servers', 0, 'headers', 'Accept'],
    ['mcp_servers', 0, 'args', 0],
    ['roles', 0, 'sandbox', 'env', 'NODE_ENV'],
    ['roles', 0, 'sandbox', 'env', 'PATH'],
    ['roles', 0, 'sandbox', 'env', 'COMPATIBILITY_MODE'],
    ['skill_variables', 'wiki_base_url'],
    ['notification_transports', 'ops', 'events', 0],
    ['notification_transports', 'ops', 'type'],
    ['notification_transports', 'mail', 'username'],
    ['notification_transports', 'mail', 'to', 0],
  ];
  for (const path of plain) t.notOk(isSecretPath(path), path.join('.'));
});

t.test('knownKeysAt reads the schema: fixed objects list their keys, free maps accept any', async (t) => {
  t.same([...(knownKeysAt(['providers']) as Set<string>)].sort(), ['embeddings', 'llm', 'llm_order']);
  t.ok((knownKeysAt([]) as Set<string>).has('notification_coalesce_max_batch'));
  const seat = knownKeysAt(['units', 0, 'children', 2, 'children', 0, 'roles', 1]);
  t.not(seat, 'any');
  t.ok((seat as Set<string>).has('contact') && (seat as Set<string>).has('handle'));
  t.ok((knownKeysAt(['units', 3]) as Set<string>).has('children'));
  t.same([...(knownKeysAt(['roles', 0, 'contact']) as Set<string>)].length, 6);
  t.ok((knownKeysAt(['providers', 'llm', 'main']) as Set<string>).has('api_keys'));
  t.same([...(knownKeysAt(['integrations', 'chat']) as Set<string>)], []);
  for (const path of [
    ['extensions'],
    ['extensions', 'release-notes'],
    ['notification_transports', 'pager'],
    ['providers', 'llm'],
    ['skill_variables'],
    ['roles', 0, 'mcp_env'],
    ['roles', 0, 'mcp_env', 'docs'],
    ['roles', 0, 'sandbox'],
    ['mcp_servers', 0, 'headers'],
    ['extensions', 'release-notes', 'channel'],
    ['extensions', 'release-notes', 'channel', 'rules', 0],
    ['roles', 0, 'sandbox', 'image'],
    ['units', 0, 'roles', 1, 'sandbox', 'image', 'registry'],
  ]) {
    t.equal(knownKeysAt(path), 'any', path.join('.'));
  }
  t.same([...(knownKeysAt(['name']) as Set<string>)], [], 'a scalar holds no keys');
  t.same([...(knownKeysAt(['nonsense', 'deeper']) as Set<string>)], [], 'outside the schema');
});

t.test('knownKeysAt agrees with validation about unknown fields', async (t) => {
  for (const key of knownKeysAt(['roles', 0]) as Set<string>) {
    const doc = baseCompany();
    doc['roles'][0][key] = Symbol('probe');
    t.notOk(
      write(doc).problems.some((p) => p.kind === 'unknown_field'),
      key,
    );
  }
});

t.test('the JSON Schema is generated from zod and covers recursion and closed objects', async (t) => {
  const schema = companyJsonSchema();
  t.equal(schema['$schema'], 'https://json-schema.org/draft/2020-12/schema');
  t.equal(schema['type'], 'object');
  t.equal(schema['additionalProperties'], false);
  t.same(schema['required'], ['name']);
  const text = JSON.stringify(schema);
  t.match(text, /"enum":\["openai","openai-compatible","anthropic"\]/);
  t.match(text, /"enum":\["department","team"\]/);
  const defs = schema['$defs'] as Record<string, { properties: Record<string, unknown> }>;
  t.ok(defs['Unit']?.properties['children'], 'units nest through a named definition');
  t.not(companyJsonSchema(), schema, 'each call returns a fresh copy');
});

t.test(
  'tool-server env and header names spelling a password or a session read as secrets, words merely containing PASS do not',
  async (t) => {
    for (const name of [
      'DB_PASS',
      'SMTP_PASS',
      'pass',
      'PASSPHRASE',
      'GPG_PASSPHRASE',
      'DB_PWD',
      'X-Session',
      'X-Session-Id',
      'SESSION_ID',
    ])
      t.ok(isSecretPath(['mcp_servers', 0, 'env', name]), name);
    t.ok(isSecretPath(['mcp_servers', 0, 'headers', 'X-Session']), 'as a header too');
    for (const name of ['BYPASS_CACHE', 'PASSTHROUGH', 'COMPASS_URL', 'PWD', 'PASSES'])
      t.notOk(isSecretPath(['mcp_servers', 0, 'env', name]), name);
  },
);
