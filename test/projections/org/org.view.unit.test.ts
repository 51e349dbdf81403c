import t from 'tap';
import { createProviderRegistry } from '../../../actors/index.js';
import { ReadModels } from '../../../projections/index.js';
import { companyDoc, planted } from '../fixtures/readmodels.js';

function models(tools: () => readonly unknown[] = () => []): ReadModels {
  const m = new ReadModels({ tools });
  m.setCompany(companyDoc, 'rev-1');
  return m;
}

t.test('the org view carries the charter, timezone, budget and units nested with their seats', async (t) => {
  const org = models().org();
  t.match(org, {
    name: 'Acme',
    mission: 'Ship useful things',
    vision: 'Calm software',
    policies: ['Be kind'],
    timezone: 'Europe/Berlin',
    token_budget: 1000,
  });
  t.same(
    org.roles.map((r) => r['handle']),
    ['ceo'],
  );
  const eng = org.units[0]!;
  t.equal(eng.name, 'Engineering');
  t.equal(eng.lead_handle, 'cto');
  t.same(
    eng.roles.map((r) => r['handle']),
    ['cto', 'dana'],
  );
  t.equal(eng.children[0]!.name, 'Platform');
  t.same(
    eng.children[0]!.roles.map((r) => r['handle']),
    ['dev-one'],
  );
});

t.test(
  'seats carry their resolved llm chain and tool sources; human seats carry kind human only',
  async (t) => {
    const org = models().org();
    const [cto, dana] = org.units[0]!.roles;
    t.same(cto!['llm'], [{ key: 'backup', type: 'openai-compatible', model: 'local-large' }], 'the seat pin');
    t.same(
      org.roles[0]!['llm'],
      [
        { key: 'main', type: 'openai', model: 'gpt-main' },
        { key: 'backup', type: 'openai-compatible', model: 'local-large' },
      ],
      'unpinned: providers.llm_order',
    );
    t.same(cto!['tool_sources'], ['builtin', 'mcp:files']);
    t.equal(dana!['kind'], 'human');
    t.notOk('llm' in dana!);
    t.notOk('tool_sources' in dana!);
    t.equal(dana!['availability'], 'mornings');
  },
);

t.test(
  'no contact identity, email, credential or deployment setting reaches the org view or the seats section',
  async (t) => {
    const m = models();
    const texts = [
      JSON.stringify(m.org()),
      JSON.stringify(
        m
          .sections()
          .find((s) => s.name === 'seats')!
          .current(),
      ),
    ];
    for (const text of texts) {
      for (const secret of planted) t.notOk(text.includes(secret), `no ${secret}`);
      for (const key of [
        'contact',
        'email',
        'mcp_env',
        'integrations',
        'api_keys',
        'base_url',
        'sandbox',
        'env',
      ])
        t.notOk(text.includes(`"${key}"`), `no ${key} key`);
    }
  },
);

t.test('seats, org, tools and agents are re-sent on every config apply', async (t) => {
  const m = models();
  const pushes: Array<[string, string]> = [];
  for (const s of m.sections()) s.subscribe((_d, mode) => pushes.push([s.name, mode]));
  m.setCompany({ ...companyDoc, mission: 'New mission' }, 'rev-2');
  t.same(pushes.map(([n]) => n).sort(), ['agents', 'budget', 'org', 'seats', 'tools']);
  t.ok(pushes.every(([, mode]) => mode === 'replace'));
  t.equal(m.org().mission, 'New mission');
});

t.test(
  'with the events hub re-sending config sections, an apply pushes only agents and budget',
  async (t) => {
    const m = new ReadModels({ pushConfigSections: false });
    m.setCompany(companyDoc, 'rev-1');
    const pushes: string[] = [];
    for (const s of m.sections()) s.subscribe(() => pushes.push(s.name));
    m.setCompany({ ...companyDoc, mission: 'Other' }, 'rev-2');
    t.same(pushes.sort(), ['agents', 'budget']);
    t.equal(
      (
        m
          .sections()
          .find((s) => s.name === 'org')!
          .current() as { mission: string }
      ).mission,
      'Other',
    );
  },
);

t.test('the tool catalogue serves valid entries from its source and leaves malformed ones out', async (t) => {
  const entry = {
    name: 'read_file',
    description: 'Reads a file',
    source: 'mcp:files',
    annotations: { readOnlyHint: true },
    delivers: null,
    input_schema: { type: 'object' },
  };
  const m = models(() => [
    entry,
    { name: 'broken' },
    { ...entry, name: 'say', source: 'builtin', delivers: 'chat' },
  ]);
  t.same(
    m.tools().map((x) => x.name),
    ['read_file', 'say'],
  );
});

t.test('no active document: no seats, an empty org in UTC', async (t) => {
  const m = new ReadModels();
  t.same(m.agentList(), []);
  t.match(m.org(), { name: '', timezone: 'UTC', roles: [], units: [] });
});

t.test('a seat llm chain in the org view is the chain the turn engine calls along', async (t) => {
  const { llm_order: _order, ...unordered } = companyDoc.providers!;
  const docs = {
    'llm_order given': companyDoc,
    'no llm_order': { ...companyDoc, providers: unordered },
    'an empty llm_order': { ...companyDoc, providers: { ...unordered, llm_order: [] } },
  };
  for (const [name, doc] of Object.entries(docs)) {
    const m = new ReadModels();
    m.setCompany(doc, 'rev-1');
    const registry = createProviderRegistry({ document: doc, resolve: () => undefined });
    for (const seat of m
      .sections()
      .find((s) => s.name === 'seats')!
      .current() as Array<Record<string, unknown>>) {
      if (seat['kind'] !== 'agent') continue;
      t.same(
        (seat['llm'] as Array<{ key: string }>).map((link) => link.key),
        registry.resolve(seat['handle'] as string),
        `${name}: ${String(seat['handle'])}`,
      );
    }
  }
});
