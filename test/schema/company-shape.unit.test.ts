import { readFileSync } from 'node:fs';
import t from 'tap';
import { parseCompanyYaml, validateCompany } from '../../schema/company/index.js';
import { baseCompany, runnable, summary, write } from '../fixtures/company/documents.js';

const fixture = (name: string): string =>
  readFileSync(new URL(`../fixtures/company/${name}`, import.meta.url), 'utf8');

t.test('the base document is valid and its normalised form gains derived handles', async (t) => {
  const result = write(baseCompany());
  t.same(result.problems, []);
  t.ok(result.valid);
  t.equal(result.document?.roles?.[0]?.handle, 'chief-agent');
});

t.test('a document that is not a map is refused as a shape problem with no derived', async (t) => {
  for (const input of [null, [], 'name: x', 7]) {
    const result = write(input);
    t.notOk(result.valid);
    t.same(summary(result), [' shape']);
    t.equal(result.derived, null);
  }
});

t.test('unknown fields are refused at every fixed level, one problem per key', async (t) => {
  const doc = baseCompany();
  doc['colour'] = 'blue';
  doc['providers']['llm']['main']['temperature'] = 0.2;
  doc['roles'][0]['mood'] = 'calm';
  doc['units'][0]['children'][0]['budget'] = 1;
  doc['units'][0]['roles'][0]['contact']['phone'] = '+1';
  doc['integrations'] = { chat: { webhook: 'x' }, codehost_a: { webhook_secret: 's', app: 1 } };
  doc['learning'] = { reflect: { enabled: true, depth: 2 } };
  doc['turn_engine'] = { max_rounds: 3 };
  doc['knowledge'] = { spaces: [] };
  const result = write(doc);
  t.same(
    result.problems
      .filter((p) => p.kind === 'unknown_field')
      .map((p) => p.path)
      .sort(),
    [
      'colour',
      'integrations.chat.webhook',
      'integrations.codehost_a.app',
      'knowledge.spaces',
      'learning.reflect.depth',
      'providers.llm.main.temperature',
      'roles[0].mood',
      'turn_engine.max_rounds',
      'units[0].children[0].budget',
      'units[0].roles[0].contact.phone',
    ],
  );
});

t.test('free settings maps accept any keys: extensions, notification transports, sandbox', async (t) => {
  const doc = baseCompany();
  doc['extensions'] = { 'release-notes': { channel: '#rel', nested: { any: ['thing'] } } };
  doc['notification_transports'] = { pager: { url: 'https://pager.example', severity_floor: 2 } };
  doc['roles'][0]['sandbox'] = {
    setup: 'make',
    image: 'node:20',
    env: { FOO: 'bar' },
    default_coding_agent: 'claude -p',
  };
  t.same(write(doc).problems, []);
});

t.test('each zod failure maps to its spec kind', async (t) => {
  const doc = baseCompany();
  delete doc['name'];
  doc['providers']['llm']['main']['type'] = 'closed-ai';
  doc['token_budget'] = -1;
  doc['policies'] = 'be nice';
  doc['timezone'] = 'Mars/Olympus';
  doc['roles'][0]['handle'] = 'Chief Agent';
  doc['notification_coalesce_max_batch'] = 0;
  const result = write(doc);
  t.same(summary(result).sort(), [
    'name missing',
    'notification_coalesce_max_batch out_of_range',
    'policies shape',
    'providers.llm.main.type unknown_value',
    'roles[0].handle invalid',
    'timezone invalid',
    'token_budget out_of_range',
  ]);
  const type = result.problems.find((p) => p.path === 'providers.llm.main.type');
  t.match(type?.message, /openai, openai-compatible, anthropic/);
  t.same(type?.segments, ['providers', 'llm', 'main', 'type']);
});

t.test('a required choice left out is missing, not an unknown value', async (t) => {
  const doc = baseCompany();
  delete doc['providers']['llm']['main']['type'];
  delete doc['units'][0]['type'];
  const result = write(doc);
  t.same(summary(result).sort(), ['providers.llm.main.type missing', 'units[0].type missing']);
  const type = result.problems.find((p) => p.path === 'units[0].type');
  t.match(type?.message, /^required.*department, team/, 'it names the choices');
  doc['units'][0]['type'] = null;
  t.same(
    summary(write(doc)).sort(),
    ['providers.llm.main.type missing', 'units[0].type unknown_value'],
    'a choice written as null is a value',
  );
});

t.test('messages never carry a credential value, fragment or length', async (t) => {
  const secret = 'sk_Live+9f8e7d6c/5b4a39281706';
  const doc = baseCompany();
  doc['roles'][0]['api_token'] = secret; // a token in an unknown field
  doc['providers']['llm']['main']['type'] = secret; // a token where an enum goes
  doc['providers']['llm']['main']['api_keys'] = secret; // a list written as one string
  doc['providers']['llm']['main']['timeout_seconds'] = secret; // wrong type
  doc['integrations'] = { codehost_a: { webhook_secret: { value: secret } }, tracker_a: { url: secret } };
  doc['roles'][0]['handle'] = secret;
  doc['units'][0]['roles'][0]['contact']['operator_id'] = secret;
  doc['mcp_servers'] = [{ name: secret, command: 'x' }];
  const result = write(doc);
  t.ok(result.problems.length >= 8, 'every fault is reported');
  const text = JSON.stringify(result.problems.map((p) => p.message));
  for (const fragment of [secret, secret.slice(0, 8), secret.slice(-6), String(secret.length)]) {
    t.notOk(text.includes(fragment), `no problem message holds ${fragment.length}-char fragment`);
  }
});

t.test('problems name the seat and unit they sit in', async (t) => {
  const doc = baseCompany();
  doc['units'][0]['children'][0]['roles'][1]['mood'] = 'x';
  doc['units'][0]['children'][0]['surprise'] = 1;
  doc['roles'][0]['unit'] = 'Platform';
  doc['roles'][0]['mood'] = 'x';
  const result = write(doc);
  const at = (path: string) => result.problems.find((p) => p.path === path);
  t.match(at('units[0].children[0].roles[1].mood'), { seat: 'cy-agent', unit: 'Platform' });
  t.match(at('units[0].children[0].surprise'), { unit: 'Platform' });
  t.notOk(at('units[0].children[0].surprise')?.seat);
  t.match(
    at('roles[0].mood'),
    { seat: 'chief-agent', unit: 'Platform' },
    'a root seat sits in the unit it names',
  );
});

t.test('YAML bodies give each problem the line of its node, or the parent line when missing', async (t) => {
  const text = fixture('lines.yaml');
  const parsed = parseCompanyYaml(text);
  t.ok(parsed.ok);
  if (!parsed.ok) return;
  const result = validateCompany(parsed.value, { mode: 'write', yamlText: text });
  const lines = Object.fromEntries(result.problems.map((p) => [p.path, p.line]));
  t.equal(lines['providers.llm.main.type'], 5);
  t.equal(lines['roles[0].surprise'], 9);
  t.equal(lines['units[0].type'], 11, 'a missing key takes its parent line');
  t.equal(lines['units[0].roles[0].token_budget'], 14);
  t.equal(write(parsed.value).problems[0]?.line, undefined, 'no YAML text, no lines');
});

t.test('unparseable YAML is refused with the line and no quoted source', async (t) => {
  const parsed = parseCompanyYaml('name: Acme\nintegrations:\n  tracker_a: {token: "sk-unterminated\n');
  t.notOk(parsed.ok);
  if (parsed.ok) return;
  t.ok(parsed.problems.length > 0);
  t.equal(parsed.problems[0]?.kind, 'invalid');
  t.ok(parsed.problems.every((p) => typeof p.line === 'number'));
  t.notOk(JSON.stringify(parsed.problems).includes('sk-unterminated'));
  const dup = parseCompanyYaml('name: a\nname: b\n');
  t.match(dup, { ok: false, problems: [{ message: 'YAML: duplicate key', line: 2 }] });
});

t.test('runnable mode applies the same shape rules', async (t) => {
  const doc = baseCompany();
  doc['colour'] = 'blue';
  t.same(summary(runnable(doc)), ['colour unknown_field']);
});
