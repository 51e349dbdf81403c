/* eslint-disable @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return -- tests edit untyped documents freely */
import t from 'tap';
import { baseCompany, runnable, summary, write, type Doc } from '../fixtures/company/documents.js';

const platform = (doc: Doc): Doc => doc['units'][0]['children'][0];
const hanna = (doc: Doc): Doc => doc['units'][0]['roles'][0];

t.test('a handle is derived from the name when absent, lowercase and hyphenated', async (t) => {
  const doc = baseCompany();
  doc['roles'][0]['name'] = 'Zoë  O’Brien, PhD';
  const result = write(doc);
  t.ok(result.valid);
  t.equal(result.derived?.seats[0]?.handle, 'zoe-o-brien-phd');
  t.equal(result.document?.roles?.[0]?.handle, 'zoe-o-brien-phd');
  t.same(
    Object.keys(result.document?.roles?.[0] ?? {}).slice(0, 2),
    ['name', 'handle'],
    'written after name',
  );
});

t.test('a name that yields no handle asks for one', async (t) => {
  const doc = baseCompany();
  doc['roles'][0]['name'] = '!!!';
  t.same(summary(write(doc)), ['roles[0].name invalid']);
  doc['roles'][0]['handle'] = 'bang';
  t.ok(write(doc).valid);
});

t.test('a written handle must follow the grammar [a-z0-9][a-z0-9-]*', async (t) => {
  for (const bad of ['-lead', 'Big', 'a_b', 'a b', '']) {
    const doc = baseCompany();
    doc['roles'][0]['handle'] = bad;
    t.same(summary(write(doc)), ['roles[0].handle invalid'], JSON.stringify(bad));
  }
});

t.test('handles are unique org-wide across agents and humans', async (t) => {
  const doc = baseCompany();
  doc['roles'].push({ name: 'Someone', handle: 'hanna-lee' });
  const result = write(doc);
  t.same(summary(result), ['units[0].roles[0].name conflict']);
  t.match(result.problems[0]?.message, /already held by the seat at roles\[1\].*derived from the name/);
  t.equal(result.problems[0]?.seat, 'hanna-lee');

  const twins = baseCompany();
  platform(twins)['roles'].push({ name: 'Bo  Agent' });
  t.same(summary(write(twins)), ['units[0].children[0].roles[2].name conflict']);
});

t.test('a handle a static /agents route takes is refused on a write and warned on a reload', async (t) => {
  const doc = baseCompany();
  doc['roles'][0]['name'] = 'Activity';
  const result = write(doc);
  t.same(summary(result), ['roles[0].name conflict'], 'derived from the name');
  t.match(result.problems[0]?.message, /handle activity is reserved: GET \/agents\/activity reads/);
  doc['roles'][0]['handle'] = 'activity-bot';
  t.ok(write(doc).valid, 'any other handle is fine');
  doc['roles'][0]['handle'] = 'activity';
  const reloaded = runnable(doc);
  t.ok(reloaded.valid, 'a stored document still loads');
  t.ok(reloaded.warnings.some((w) => w.kind === 'admission' && /reserved/.test(w.message)));
});

t.test('kind is agent by default or human; anything else is an unknown value', async (t) => {
  const result = write(baseCompany());
  t.same(
    result.derived?.seats.map((s) => s.kind),
    ['agent', 'human', 'agent', 'agent'],
  );
  const doc = baseCompany();
  doc['roles'][0]['kind'] = 'robot';
  t.same(summary(write(doc)), ['roles[0].kind unknown_value']);
});

t.test('human seats refuse every runtime-only field', async (t) => {
  const doc = baseCompany();
  Object.assign(hanna(doc), {
    llm: 'main',
    token_budget: 10,
    learning_enabled: true,
    schedules: [{ name: 's', cron: '@daily', task: 't' }],
    integrations: { chat: { bot_token: '${BOT}' }, codehost_b: { token: '${CB}' } },
    mcp_env: { docs: { KEY: 'v' } },
    behavioral_guidelines: ['be brief'],
    sandbox: { setup: 'make' },
  });
  const result = write(doc);
  const fields = result.problems.map((p) => `${p.path.replace('units[0].roles[0].', '')} ${p.kind}`).sort();
  t.same(fields, [
    'behavioral_guidelines conflict',
    'integrations conflict',
    'learning_enabled conflict',
    'llm conflict',
    'mcp_env conflict',
    'sandbox conflict',
    'schedules conflict',
    'token_budget conflict',
  ]);
  t.match(
    result.problems.find((p) => p.path.endsWith('schedules'))?.message,
    /human seats cannot define schedules/,
  );
  t.ok(result.problems.every((p) => p.seat === 'hanna-lee' && p.unit === 'Engineering'));
});

t.test('human seats keep goal, backstory, responsibilities, manages, email and availability', async (t) => {
  const doc = baseCompany();
  Object.assign(hanna(doc), {
    goal: 'g',
    backstory: 'b',
    responsibilities: ['r'],
    manages: ['Platform'],
    email: 'hanna@example.com',
    availability: 'Mornings',
  });
  t.same(write(doc).problems, []);
});

t.test('agent seats refuse the human-only fields', async (t) => {
  const doc = baseCompany();
  doc['roles'][0]['contact'] = { chat_user_id: 'U9' };
  doc['roles'][0]['availability'] = 'always';
  t.same(summary(write(doc)).sort(), ['roles[0].availability conflict', 'roles[0].contact conflict']);
});

t.test('a human seat needs at least one contact identity', async (t) => {
  for (const contact of [undefined, {}]) {
    const doc = baseCompany();
    if (contact === undefined) delete hanna(doc)['contact'];
    else hanna(doc)['contact'] = contact;
    t.same(summary(write(doc)), ['units[0].roles[0].contact missing']);
  }
});

t.test('contact values are trimmed; logins and user ids lowercased unless a reference', async (t) => {
  const doc = baseCompany();
  hanna(doc)['contact'] = {
    chat_user_id: '  U1X  ',
    codehost_a_login: ' HannaL ',
    codehost_b_username: 'HLee',
    tracker_b_user_id: 'A1B2C3D4-0000-4000-8000-00000000000F',
    tracker_a_account_id: ' ${HANNA_TA_ID} ',
    operator_id: '${HANNA_OPERATOR}',
  };
  const result = write(doc);
  t.same(result.problems, []);
  t.same(result.document?.units?.[0]?.roles?.[0]?.contact, {
    chat_user_id: 'U1X',
    codehost_a_login: 'hannal',
    codehost_b_username: 'hlee',
    tracker_b_user_id: 'a1b2c3d4-0000-4000-8000-00000000000f',
    tracker_a_account_id: '${HANNA_TA_ID}',
    operator_id: '${HANNA_OPERATOR}',
  });
  t.equal(hanna(doc)['contact']['chat_user_id'], '  U1X  ', 'the input is never mutated');
});

t.test('a contact value embedding a reference in a longer string is refused', async (t) => {
  const doc = baseCompany();
  hanna(doc)['contact'] = { chat_user_id: 'U-${SUFFIX}' };
  t.same(summary(write(doc)), ['units[0].roles[0].contact.chat_user_id invalid']);
  hanna(doc)['contact'] = { chat_user_id: '${A}${B}' };
  t.same(summary(write(doc)), ['units[0].roles[0].contact.chat_user_id invalid']);
  hanna(doc)['contact'] = { chat_user_id: '   ' };
  t.same(summary(write(doc)), ['units[0].roles[0].contact.chat_user_id out_of_range']);
});

t.test('a reference to an unset variable still counts as a declared identity', async (t) => {
  const doc = baseCompany();
  hanna(doc)['contact'] = { chat_user_id: '${NEVER_SET_ANYWHERE}' };
  t.ok(write(doc).valid);
});

t.test('one contact identity belongs to one person', async (t) => {
  const doc = baseCompany();
  doc['roles'].push({ name: 'Ian', kind: 'human', contact: { codehost_a_login: 'HLEE' } });
  hanna(doc)['contact'] = { chat_user_id: 'U1', codehost_a_login: 'hlee' };
  t.same(summary(write(doc)), ['units[0].roles[0].contact.codehost_a_login conflict']);
});

t.test('units nest to any depth and inherit their lead from the parent', async (t) => {
  const doc = baseCompany();
  let parent = platform(doc);
  for (let depth = 0; depth < 6; depth++) {
    const child = { name: `Level ${depth}`, type: 'team' };
    parent['children'] = [child];
    parent = child;
  }
  const result = write(doc);
  t.ok(result.valid);
  const deepest = result.derived?.units.at(-1);
  t.match(deepest, { name: 'Level 5', lead: 'Bo Agent', lead_handle: 'bo-agent', parent: 'Level 4' });
  t.equal(
    deepest?.path,
    'units[0].children[0].children[0].children[0].children[0].children[0].children[0].children[0]',
  );
});

t.test('a dangling unit lead is a warning, not a refusal, in both modes', async (t) => {
  const doc = baseCompany();
  platform(doc)['lead'] = 'Nobody Here';
  for (const result of [write(doc), runnable(doc)]) {
    t.ok(result.valid);
    t.match(result.warnings, [
      {
        kind: 'dangling_reference',
        ref: 'lead',
        path: 'units[0].children[0].lead',
        from: 'Platform',
        to: 'Nobody Here',
        unit: 'Platform',
      },
    ]);
  }
});

t.test('a lead may name a seat by handle as well as by name', async (t) => {
  const doc = baseCompany();
  platform(doc)['lead'] = 'cy-agent';
  const result = write(doc);
  t.same(result.warnings, []);
  t.same(result.derived?.seats.find((s) => s.handle === 'cy-agent')?.lead_of, ['Platform']);
});

t.test('unit type is department or team and unit names are unique', async (t) => {
  const doc = baseCompany();
  platform(doc)['type'] = 'squad';
  doc['units'].push({ name: 'Platform', type: 'team' });
  t.same(summary(write(doc)).sort(), ['units[0].children[0].type unknown_value', 'units[1].name conflict']);
});

t.test('a root seat whose unit names no unit is a dangling reference; it lands nowhere', async (t) => {
  const doc = baseCompany();
  doc['roles'][0]['unit'] = 'Research';
  const result = write(doc);
  t.ok(result.valid);
  t.match(result.warnings, [
    { kind: 'dangling_reference', ref: 'unit', from: 'chief-agent', to: 'Research', seat: 'chief-agent' },
  ]);
  t.equal(result.derived?.seats[0]?.unit, null);
  doc['roles'][0]['unit'] = 'Platform';
  t.equal(write(doc).derived?.seats[0]?.unit, 'Platform');
});

t.test('a seat listed in one unit naming another is a conflict', async (t) => {
  const doc = baseCompany();
  platform(doc)['roles'][0]['unit'] = 'Engineering';
  t.same(summary(write(doc)), ['units[0].children[0].roles[0].unit conflict']);
  platform(doc)['roles'][0]['unit'] = 'Platform';
  t.ok(write(doc).valid);
});

t.test('manages names seats or units; anything else is a dangling reference', async (t) => {
  const doc = baseCompany();
  doc['roles'][0]['manages'] = ['Engineering', 'Hanna Lee', 'bo-agent', 'Ghost Team'];
  const result = write(doc);
  t.ok(result.valid);
  t.match(result.warnings, [{ ref: 'manages', path: 'roles[0].manages[3]', to: 'Ghost Team' }]);
  t.equal(result.warnings.length, 1);
});

t.test('wiki and tracker-b are mutually exclusive while both are enabled', async (t) => {
  const doc = baseCompany();
  doc['integrations'] = {
    wiki: { url: 'https://wiki.example' },
    tracker_b: { url: 'https://tb.example', workspace: 'acme' },
  };
  t.same(summary(write(doc)), ['integrations.tracker_b conflict']);
  doc['integrations']['tracker_b']['enabled'] = false;
  t.ok(write(doc).valid);
});

t.test('tracker-a and wiki take url or cloud_id, not both and not neither', async (t) => {
  for (const block of ['tracker_a', 'wiki']) {
    const doc = baseCompany();
    doc['integrations'] = { [block]: { url: 'https://x.example', cloud_id: 'c1' } };
    t.same(summary(write(doc)), [`integrations.${block}.cloud_id conflict`]);
    doc['integrations'] = { [block]: { token: '${T}' } };
    t.same(summary(write(doc)), [`integrations.${block}.url missing`]);
    doc['integrations'] = { [block]: { cloud_id: 'c1', email: 'bot@example.com', token: '${T}' } };
    t.ok(write(doc).valid);
  }
});

t.test('codehost-a needs its webhook secret', async (t) => {
  const doc = baseCompany();
  doc['integrations'] = { codehost_a: {} };
  t.same(summary(write(doc)), ['integrations.codehost_a.webhook_secret missing']);
});

t.test('an enabled codehost-b or tracker-b block needs its url', async (t) => {
  const doc = baseCompany();
  doc['integrations'] = { codehost_b: { token: '${CB}' }, tracker_b: { enabled: false } };
  t.same(summary(write(doc)), ['integrations.codehost_b.url missing']);
});

t.test('an unknown codehost-b access level is a dangling reference warning', async (t) => {
  const doc = baseCompany();
  doc['integrations'] = {
    codehost_b: { url: 'https://cb.example', provisioning: { access_level: 'developer' } },
  };
  t.same(write(doc).warnings, []);
  doc['integrations']['codehost_b']['provisioning']['access_level'] = 30;
  t.same(write(doc).warnings, []);
  doc['integrations']['codehost_b']['provisioning']['access_level'] = 'superuser';
  const result = write(doc);
  t.ok(result.valid);
  t.match(result.warnings, [
    {
      kind: 'dangling_reference',
      ref: 'codehost_b_access_level',
      path: 'integrations.codehost_b.provisioning.access_level',
      to: 'superuser',
    },
  ]);
});

t.test('an enabled lead-targeted schedule under a human lead is an error', async (t) => {
  const doc = baseCompany();
  doc['units'][0]['schedules'] = [{ name: 'weekly', cron: '0 9 * * 1', task: 'plan', target: 'lead' }];
  const result = write(doc);
  t.same(summary(result), ['units[0].schedules[0].target conflict']);
  t.match(result.problems[0]?.message, /hanna-lee is a human seat/);
  doc['units'][0]['schedules'][0]['enabled'] = false;
  t.ok(write(doc).valid, 'a disabled one is allowed');
  doc['units'][0]['schedules'][0] = { name: 'weekly', cron: '0 9 * * 1', task: 'plan', target: 'each' };
  t.ok(write(doc).valid, 'each fans out to agent members only');
});

t.test('an inherited human lead counts, and so does a seat schedule under a human-led unit', async (t) => {
  const doc = baseCompany();
  delete platform(doc)['lead'];
  platform(doc)['schedules'] = [{ name: 'standup', cron: '0 9 * * 1-5', task: 't', target: 'lead' }];
  platform(doc)['roles'][0]['schedules'] = [{ name: 'mine', cron: '@daily', task: 't', target: 'lead' }];
  t.same(summary(write(doc)).sort(), [
    'units[0].children[0].roles[0].schedules[0].target conflict',
    'units[0].children[0].schedules[0].target conflict',
  ]);
});

t.test('schedules check cron, timezone, target and unique names per scope', async (t) => {
  const doc = baseCompany();
  doc['roles'][0]['schedules'] = [
    { name: 'a', cron: 'every day', task: 't' },
    { name: 'a', cron: '*/5 * * * *', task: 't', timezone: 'Atlantis/Capital' },
    { name: 'b', cron: '@hourly', task: 't', target: 'everyone', timeout_seconds: 0 },
    { name: 'c', cron: '${CRON}', task: 't', timezone: 'Asia/Tokyo', catchup: true },
  ];
  t.same(summary(write(doc)).sort(), [
    'roles[0].schedules[0].cron invalid',
    'roles[0].schedules[1].name conflict',
    'roles[0].schedules[1].timezone invalid',
    'roles[0].schedules[2].target unknown_value',
    'roles[0].schedules[2].timeout_seconds out_of_range',
  ]);
});

t.test('a seat llm and every llm_order entry name existing providers', async (t) => {
  const doc = baseCompany();
  doc['roles'][0]['llm'] = 'gpt';
  doc['providers']['llm_order'] = ['main', 'backup', 'main'];
  t.same(summary(write(doc)).sort(), [
    'providers.llm_order[1] unknown_value',
    'providers.llm_order[2] conflict',
    'roles[0].llm unknown_value',
  ]);
});

t.test('llm providers: type closed set, openai-compatible needs base_url, keys are route-safe', async (t) => {
  const doc = baseCompany();
  doc['providers']['llm']['local'] = { type: 'openai-compatible', model: 'm' };
  doc['providers']['llm']['bad key'] = { type: 'openai', model: 'm' };
  t.same(summary(write(doc)).sort(), [
    'providers.llm.bad key invalid',
    'providers.llm.local.base_url missing',
  ]);
  doc['providers']['llm']['local']['base_url'] = 'not a url';
  t.same(summary(write(doc)).sort(), [
    'providers.llm.bad key invalid',
    'providers.llm.local.base_url invalid',
  ]);
});

t.test('tool servers: header names are HTTP tokens, values hold no line break', async (t) => {
  const doc = baseCompany();
  doc['mcp_servers'] = [
    { name: 'a', url: 'https://mcp.example/a', headers: { 'Bad Header:': 'x' } },
    { name: 'b', url: 'https://mcp.example/b', headers: { '': 'x' } },
    { name: 'c', url: 'https://mcp.example/c', headers: { 'X-Token': 'one\r\nInjected: two' } },
    { name: 'd', url: 'https://mcp.example/d', headers: { Authorization: 'Bearer ${D_TOKEN}' } },
  ];
  t.same(summary(write(doc)).sort(), [
    'mcp_servers[0].headers.Bad Header: invalid',
    'mcp_servers[1].headers. invalid',
    'mcp_servers[2].headers.X-Token invalid',
  ]);
});

t.test('tool servers: a tool_prefix is at most 32 characters usable in a function name', async (t) => {
  const doc = baseCompany();
  doc['mcp_servers'] = [
    { name: 'a', command: 'x', tool_prefix: 'a b/c! ' },
    { name: 'b', command: 'x', tool_prefix: 'p'.repeat(71) },
    { name: 'c', command: 'x', tool_prefix: 'gh_' },
    { name: 'd', command: 'x', tool_prefix: '' },
  ];
  t.same(summary(write(doc)).sort(), [
    'mcp_servers[0].tool_prefix invalid',
    'mcp_servers[1].tool_prefix invalid',
  ]);
});

t.test('tool servers: unique names, command or url', async (t) => {
  const doc = baseCompany();
  doc['mcp_servers'] = [
    { name: 'docs', command: 'npx', args: ['docs'] },
    { name: 'docs', url: 'https://mcp.example/docs', headers: { Authorization: '${DOCS_AUTH}' } },
    { name: 'both', command: 'x', url: 'https://x.example' },
    { name: 'neither' },
  ];
  t.same(summary(write(doc)).sort(), [
    'mcp_servers[1].name conflict',
    'mcp_servers[2].url conflict',
    'mcp_servers[3].command missing',
  ]);
});
