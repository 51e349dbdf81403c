import t from 'tap';
import {
  integrationState,
  isSecretPath,
  knownKeysAt,
  planInputs,
  segmentsOf,
  setupKinds,
  setupFindings,
  SetupInputs,
  type KindSpec,
} from '../../schema/index.js';

const kinds = ['tracker-a', 'wiki', 'relay', 'chat', 'codehost-a', 'codehost-b', 'tracker-b', 'monitor'];
const mint = (): string => 'minted-value-0123456789abcdefghij';
const spec = (key: string): KindSpec => setupKinds.find((k) => k.key === key)!;
const inputs = (body: unknown) => SetupInputs.parse(body);

t.test('every kind the spec names declares its requirements', async (t) => {
  t.same(
    setupKinds.map((k) => k.key),
    kinds,
  );
  for (const kind of setupKinds) {
    const fields = kind.requirements.map((r) => r.field);
    t.equal(new Set(fields).size, fields.length, `${kind.key}: fields are unique`);
    for (const r of kind.requirements) {
      t.ok(
        ['secret', 'url', 'id', 'choice', 'text', 'handle', 'toggle'].includes(r.kind),
        `${kind.key}.${r.field}`,
      );
      t.ok(
        r.label !== '' && r.help !== '' && r.where !== '' && r.blocks !== '',
        `${kind.key}.${r.field} explains itself`,
      );
      t.equal(
        r.secret_name !== null,
        r.kind === 'secret',
        `${kind.key}.${r.field}: a secret name exactly for secrets`,
      );
      if (r.mintable) t.equal(r.kind, 'secret', 'only credentials are minted');
    }
  }
});

t.test('every config path is a real location of the company document schema', async (t) => {
  for (const kind of setupKinds) {
    const paths = [kind.block_path, ...kind.requirements.map((r) => r.config_path)];
    for (const path of paths) {
      if (path === null) continue;
      const segments = segmentsOf(path);
      const requirement = kind.requirements.find((r) => r.config_path === path);
      // Per-seat credentials sit on a seat: check them under the first root seat.
      const at = requirement?.per_seat ? ['roles', 0, ...segments] : segments;
      const known = knownKeysAt(at.slice(0, -1));
      t.ok(known === 'any' || known.has(String(at.at(-1))), `${kind.key}: ${path}`);
      if (requirement?.kind === 'secret') t.ok(isSecretPath(at), `${path} is redacted on reads`);
    }
  }
});

t.test('the monitor token comes first, is a mintable secret, and needs 26 characters', async (t) => {
  t.match(spec('monitor').requirements[0], {
    field: 'webhook_token',
    kind: 'secret',
    mintable: true,
    required: true,
    min_length: 26,
  });
});

t.test('the relay app id is listed with tracker-a only', async (t) => {
  const holders = setupKinds.filter((k) =>
    k.requirements.some((r) => r.config_path === 'integrations.relay_app_id'),
  );
  t.same(
    holders.map((k) => k.key),
    ['tracker-a'],
  );
});

t.test('state: required fields and one-of groups decide satisfied', async (t) => {
  const lookups = new Map([['TOKEN', { source: 'store' as const, value: 'x' }]]);
  const base = { lookups, publicBase: null, agentSeats: [] };
  const doc = (block: Record<string, unknown>) => ({ name: 'A', integrations: { tracker_a: block } });
  t.match(integrationState(spec('tracker-a'), { ...base, document: doc({ token: '${TOKEN}' }) }), {
    configured: true,
    satisfied: false,
  });
  t.match(
    integrationState(spec('tracker-a'), {
      ...base,
      document: doc({ url: 'https://t.example', token: '${TOKEN}' }),
    }),
    { satisfied: true, public_url: null },
  );
  t.match(
    integrationState(spec('tracker-a'), {
      ...base,
      document: doc({ url: 'https://t.example', token: '${GONE}' }),
    }),
    { satisfied: false },
  );
  t.match(integrationState(spec('tracker-a'), { ...base, document: null }), {
    configured: false,
    enabled: false,
  });
});

t.test(
  'findings: each unmet requirement of an enabled block under its blocks name; none for a block off',
  async (t) => {
    const lookups = new Map([['TOKEN', { source: 'store' as const, value: 'x' }]]);
    const base = { lookups, publicBase: null, agentSeats: [] };
    const findings = (key: string, block: unknown) =>
    setupFindings(spec(key), integrationState(spec(key), { ...base, document: { name: 'A', integrations: { [key.replace('-', '_')]: block } } })); // prettier-ignore
    const names = (key: string, block: unknown) =>
      findings(key, block)
        .map((f) => f.finding)
        .sort();
    // tracker-b: url, workspace, token and webhook secret are required.
    t.same(names('tracker-b', { url: 'https://tb.example', workspace: 'w', token: '${TOKEN}' }), ['tracker_b.webhook_unsigned']); // prettier-ignore
    t.match(findings('tracker-b', { url: 'https://tb.example', workspace: 'w', token: '${GONE}', webhook_secret: 's' }), [
    { finding: 'tracker_b.credentials_missing', integration: 'tracker-b', missing: ['API token'] },
  ], 'a reference that resolves to nothing counts as missing'); // prettier-ignore
    t.same(names('tracker-b', { enabled: false }), [], 'a block switched off raises nothing');
    t.same(setupFindings(spec('tracker-b'), integrationState(spec('tracker-b'), { ...base, document: { name: 'A' } })), []); // prettier-ignore
    // tracker-a: url or cloud_id, one of them.
    t.same(names('tracker-a', { token: '${TOKEN}' }), ['tracker_a.site_missing']);
    t.same(
      names('tracker-a', { cloud_id: 'c-1', token: '${TOKEN}' }).includes('tracker_a.site_missing'),
      false,
    );
  },
);

t.test('inputs: a list field splits on commas, an integer field parses, "" removes', async (t) => {
  const doc = { name: 'A', integrations: { tracker_b: { url: 'https://x', workspace: 'w' } } };
  const plan = planInputs(
    spec('tracker-b'),
    inputs({ values: { projects: ' A, B ,, C', token_expiry_days: '7', workspace: '' } }),
    doc,
    [],
    mint,
  );
  t.same(plan.document?.['integrations'], {
    tracker_b: { url: 'https://x', provisioning: { projects: ['A', 'B', 'C'], token_expiry_days: 7 } },
  });
  t.same(plan.seals, []);
});

t.test('inputs: a credential-only kind plans a seal and no document', async (t) => {
  const plan = planInputs(spec('monitor'), inputs({ generate: ['webhook_token'] }), null, [], mint);
  t.same(plan, {
    seals: [{ field: 'webhook_token', name: 'SVC_MONITOR_WEBHOOK_TOKEN', value: mint(), generated: true }],
    written: [],
    document: null,
  });
});

t.test('inputs: refusals name the field and never the value', async (t) => {
  const refused = (kind: string, body: unknown) => {
    try {
      planInputs(spec(kind), inputs(body), { name: 'A' }, ['bo'], mint);
      return null;
    } catch (error) {
      return error as { code: string; problems: Array<{ path: string; kind: string; message: string }> };
    }
  };
  t.match(refused('codehost-a', { values: { webhook_secret: 's3cr3t' }, generate: ['webhook_secret'] }), {
    code: 'invalid_body',
    problems: [{ path: 'values.webhook_secret', kind: 'conflict' }],
  });
  t.match(refused('codehost-a', { values: { webhook_secret: '' } }), { code: 'invalid_body' });
  t.match(refused('chat', { values: { seat: 'nobody' } }), { code: 'validation_error' });
  t.match(refused('codehost-b', { values: { enabled: 'yes' } }), { code: 'invalid_body' });
  const short = refused('monitor', { values: { webhook_token: 'short-token-value' } });
  t.match(short, { code: 'validation_error', problems: [{ kind: 'out_of_range' }] });
  t.notMatch(JSON.stringify(short?.problems), 'short-token-value');
  t.notMatch(JSON.stringify(short?.problems), String('short-token-value'.length));
});

t.test('findings name a required secret sealed under a key this node lacks, with that key', async (t) => {
  const lookups = new Map([['TOKEN', { source: 'store' as const, value: 'x' }]]);
  const base = { lookups, publicBase: null, agentSeats: [], unreadable: new Map([['SEALED', 'k9']]) };
  const document = { name: 'A', integrations: { tracker_b: { url: 'https://tb.example', workspace: 'w', token: '${SEALED}', webhook_secret: 's' } } }; // prettier-ignore
  t.same(setupFindings(spec('tracker-b'), integrationState(spec('tracker-b'), { ...base, document })), [
    {
      finding: 'tracker_b.credentials_missing',
      integration: 'tracker-b',
      missing: ['API token'],
      unreadable: [{ label: 'API token', name: 'SEALED', key_id: 'k9' }],
    },
  ]);
  const unset = {
    ...document,
    integrations: { tracker_b: { ...document.integrations.tracker_b, token: '${GONE}' } },
  };
  t.notOk(
    'unreadable' in
      setupFindings(spec('tracker-b'), integrationState(spec('tracker-b'), { ...base, document: unset }))[0]!,
    'a name the store does not hold carries no such mark',
  );
});
