import { readFileSync } from 'node:fs';
import t from 'tap';
import {
  AGENT_NAMESPACE,
  agentId,
  NAMESPACE_DNS,
  NAMESPACE_URL,
  parseCompanyYaml,
  uuidv5,
  validateCompany,
} from '../../schema/company/index.js';
import { baseCompany, write } from '../fixtures/company/documents.js';

t.test('uuidv5 matches the RFC 9562 example vector', async (t) => {
  t.equal(uuidv5(NAMESPACE_DNS, 'www.example.com'), '2ed6657d-e927-568b-95e1-2665a8aea6a2');
});

t.test('the agent namespace is uuidv5(URL namespace, urn:svc:agent)', async (t) => {
  t.equal(AGENT_NAMESPACE, uuidv5(NAMESPACE_URL, 'urn:svc:agent'));
});

t.test('an agent id is uuidv5 over company name, newline, handle', async (t) => {
  const id = agentId('Acme', 'bo-agent');
  t.equal(id, uuidv5(AGENT_NAMESPACE, 'Acme\nbo-agent'));
  t.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  t.not(agentId('Acme', 'bo'), agentId('Acme2', 'bo'), 'the company name is part of the id');
  t.not(agentId('Acme', 'bo'), agentId('Acme', 'bo-2'));
});

t.test('derived seats carry handle, kind, placement, agent id and the units they lead', async (t) => {
  const result = write(baseCompany());
  t.same(result.derived?.seats, [
    {
      handle: 'chief-agent',
      name: 'Chief Agent',
      kind: 'agent',
      unit: null,
      agent_id: agentId('Acme', 'chief-agent'),
      lead_of: [],
    },
    {
      handle: 'hanna-lee',
      name: 'Hanna Lee',
      kind: 'human',
      unit: 'Engineering',
      agent_id: null,
      lead_of: ['Engineering'],
    },
    {
      handle: 'bo-agent',
      name: 'Bo Agent',
      kind: 'agent',
      unit: 'Platform',
      agent_id: agentId('Acme', 'bo-agent'),
      lead_of: ['Platform'],
    },
    {
      handle: 'cy-agent',
      name: 'Cy Agent',
      kind: 'agent',
      unit: 'Platform',
      agent_id: agentId('Acme', 'cy-agent'),
      lead_of: [],
    },
  ]);
  t.same(result.derived?.units, [
    {
      name: 'Engineering',
      path: 'units[0]',
      type: 'department',
      lead: 'Hanna Lee',
      lead_handle: 'hanna-lee',
      parent: null,
    },
    {
      name: 'Platform',
      path: 'units[0].children[0]',
      type: 'team',
      lead: 'Bo Agent',
      lead_handle: 'bo-agent',
      parent: 'Engineering',
    },
  ]);
});

t.test('derived is computed for an invalid document as long as it parsed into a map', async (t) => {
  const doc = baseCompany();
  doc['colour'] = 'blue';
  doc['units'][0]['children'][0]['roles'][0]['kind'] = 'robot';
  delete doc['name'];
  const result = write(doc);
  t.notOk(result.valid);
  t.equal(result.document, null);
  t.equal(result.derived?.seats.length, 4);
  t.equal(result.derived?.seats[0]?.agent_id, null, 'no company name, no agent id');
  t.equal(result.derived?.units[1]?.lead, 'Bo Agent');
});

t.test('normalisation keeps key order and adds no defaults', async (t) => {
  const doc = baseCompany();
  const result = write(doc);
  const expected = structuredClone(doc);
  expected['roles'][0] = { name: 'Chief Agent', handle: 'chief-agent', goal: 'Run the company.' };
  expected['units'][0]['roles'][0] = {
    name: 'Hanna Lee',
    handle: 'hanna-lee',
    kind: 'human',
    contact: { chat_user_id: 'U1' },
  };
  expected['units'][0]['children'][0]['roles'] = [
    { name: 'Bo Agent', handle: 'bo-agent' },
    { name: 'Cy Agent', handle: 'cy-agent', llm: 'main' },
  ];
  t.same(result.document, expected);
  t.same(Object.keys(result.document ?? {}), Object.keys(doc));
});

t.test('ops/company.example.yaml validates with no problems and no warnings', async (t) => {
  const text = readFileSync(new URL('../../ops/company.example.yaml', import.meta.url), 'utf8');
  const parsed = parseCompanyYaml(text);
  t.ok(parsed.ok);
  if (!parsed.ok) return;
  const result = validateCompany(parsed.value, { mode: 'write', yamlText: text });
  t.same(result.problems, []);
  t.same(result.warnings, []);
  t.same(
    result.derived?.seats.map((s) => `${s.handle} ${s.kind} ${s.unit ?? '-'} [${s.lead_of.join(', ')}]`),
    [
      'iris-chen agent - []',
      'maria-keller human Engineering [Engineering]',
      'theo-park agent Platform [Platform]',
      'nia-okafor agent Platform []',
      'sam-rivera agent Robot Software [Robot Software]',
      'lena-vogt agent Robot Software []',
      'omar-haddad agent Robot Software []',
      'priya-nair agent Operations [Operations, Customer Support]',
      'jonas-weber agent Customer Support []',
      'ava-costa agent Customer Support []',
    ],
  );
  t.equal(result.derived?.seats.filter((s) => s.agent_id !== null).length, 9, 'every agent has an id');
  const maria = result.document?.units?.[0]?.roles?.[0];
  t.equal(maria?.contact?.codehost_a_login, 'mkeller', 'logins are stored lowercased');
});
