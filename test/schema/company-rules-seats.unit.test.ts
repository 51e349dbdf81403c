/* eslint-disable @typescript-eslint/no-unsafe-call -- tests edit untyped documents freely */
// Company rules for seats: handles, kinds, the fields each kind takes, and contact identities.
import t from 'tap';
import { baseCompany, hanna, platform, runnable, summary, write } from '../fixtures/company/documents.js';

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

t.test('a derived handle spells out the Latin letters that decompose to no ASCII letter', async (t) => {
  // Accents fall away (NFKD); ß, æ, ø, ł and their kin have no decomposition and were dropped, so
  // "Groß" and "Gro" held one handle, "Søren" was "s-ren" and "ß" none at all.
  for (const [name, handle] of [
    ['Jürgen Groß', 'jurgen-gross'],
    ['Gro', 'gro'],
    ['STRAẞE', 'strasse'],
    ['Søren Kierkegaard', 'soren-kierkegaard'],
    ['Æsa Ødegård', 'aesa-odegard'],
    ['Łukasz Żółw', 'lukasz-zolw'],
    ['Đorđe Ðukić', 'dorde-dukic'],
    ['Þóra', 'thora'],
    ['Œuvre Cœur', 'oeuvre-coeur'],
    ['İlkay Işık', 'ilkay-isik'],
    ['Ħal Ŧom Ŋoma', 'hal-tom-ngoma'],
    ['ﬁnance ②', 'finance-2'],
    ['ß', 'ss'],
    ['Zoë  O’Brien, PhD', 'zoe-o-brien-phd'],
  ] as const) {
    const doc = baseCompany();
    doc['roles'][0]['name'] = name;
    const result = write(doc);
    t.ok(result.valid, name);
    t.equal(result.derived?.seats[0]?.handle, handle, name);
  }
});

t.test('a name that yields no handle asks for one', async (t) => {
  const doc = baseCompany();
  doc['roles'][0]['name'] = '!!!';
  t.same(summary(write(doc)), ['roles[0].name invalid']);
  // Other scripts are not transliterated (no table could be right for all): such a name needs a handle.
  doc['roles'][0]['name'] = 'Иван';
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
