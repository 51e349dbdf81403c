import { Subjects } from '../../bus/index.js';
import { readRevision } from '../../projections/index.js';
import { pino } from 'pino';
import t from 'tap';
import { request } from 'node:http';
import { CI_TOKEN, company, OPS_TOKEN, startConfigNode, type ConfigNode } from './fixtures/config-node.js';
import { openAuth } from './fixtures/gateway-harness.js';

type Json = Record<string, unknown>;
const json = async (res: Response): Promise<Json> => (await res.json()) as Json;
const marker = { encrypted: true, key_id: null };

/** Stores the first revision and returns its id. */
async function first(node: ConfigNode, doc: unknown = company()): Promise<string> {
  const res = await node.call('PUT', '/config', { body: doc, headers: { 'x-summary': 'first' } });
  if (res.status !== 201) throw new Error(`first PUT answered ${res.status}: ${await res.text()}`);
  return (await json(res))['revision_id'] as string;
}

t.test('reads before the first revision answer 404 no_active_revision with no-store', async (t) => {
  const node = await startConfigNode(t);
  for (const path of ['/config', '/config/references', '/config/roles/bo-agent']) {
    const res = await node.call('GET', path);
    t.equal(res.status, 404, path);
    t.equal((await json(res))['error'], 'no_active_revision', path);
    t.equal(res.headers.get('cache-control'), 'no-store');
  }
  t.same((await json(await node.call('GET', '/config/revisions')))['revisions'], []);
});

t.test('config routes need a token, reads included', async (t) => {
  const node = await startConfigNode(t);
  t.equal((await node.call('GET', '/config', { auth: null })).status, 401);
  t.equal((await node.call('PUT', '/config', { auth: null, body: company() })).status, 401);
  t.equal((await node.call('GET', '/config', { auth: 'wrong-token' })).status, 401);
});

t.test('a PUT needs a summary: X-Summary or _summary, the header winning', async (t) => {
  const node = await startConfigNode(t);
  const bare = await node.call('PUT', '/config', { body: company() });
  t.equal(bare.status, 400);
  t.equal((await json(bare))['error'], 'summary_required');
  const viaBody = await node.call('PUT', '/config', { body: { ...company(), _summary: 'from body' } });
  t.equal(viaBody.status, 201);
  const id = (await json(viaBody))['revision_id'] as string;
  const meta = await json(await node.call('GET', `/config/revisions/${id}`));
  t.equal(meta['summary'], 'from body');
  t.notOk('_summary' in (meta['payload'] as Json), '_summary is stripped before storing');
  const both = await node.call('PUT', '/config', {
    body: { ...company('B'), _summary: 'body' },
    headers: { 'x-summary': 'header' },
  });
  const bothId = (await json(both))['revision_id'] as string;
  t.equal((await json(await node.call('GET', `/config/revisions/${bothId}`)))['summary'], 'header');
});

t.test('a __proto__ key anywhere in a body is refused as an unknown field, not dropped', async (t) => {
  const node = await startConfigNode(t);
  await node.call('PUT', '/config', { body: company(), headers: { 'x-summary': 'first' } });
  const text = JSON.stringify(company('P')).replace('"roles":[{', '"roles":[{"__proto__":{"llm":"main"},');
  for (const query of ['', '?dry_run=true']) {
    const res = await node.call('PUT', `/config${query}`, { body: text, headers: { 'x-summary': 'p', 'content-type': 'application/json' } }); // prettier-ignore
    t.equal(res.status, 400, `PUT /config${query}`);
    t.match(await json(res), { error: 'invalid_body', problems: [{ path: 'roles[0].__proto__', kind: 'unknown_field' }] }); // prettier-ignore
  }
  const yaml = await node.call('PUT', '/config', {
    body: 'name: Acme\n__proto__: {x: 1}\n',
    headers: { 'x-summary': 'p', 'content-type': 'application/yaml' },
  });
  t.match(await json(yaml), {
    error: 'invalid_body',
    problems: [{ path: '__proto__', kind: 'unknown_field' }],
  });
});

t.test(
  'a non-ASCII summary travels percent-encoded; raw non-ASCII bytes in X-Summary are refused',
  async (t) => {
    const node = await startConfigNode(t);
    // Raw UTF-8 bytes, as curl sends them (fetch would send Latin-1).
    const raw = (summary: string) =>
      new Promise<{ status: number; body: Json }>((resolve, reject) => {
        const body = JSON.stringify(company('R'));
        const url = new URL(`${node.base}/config`);
        const req = request({ host: url.hostname, port: url.port, method: 'PUT', path: '/config', headers: { authorization: `Bearer ${OPS_TOKEN}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }); // prettier-ignore
        req.setHeader('x-summary', Buffer.from(summary, 'utf8').toString('latin1'));
        req.on('response', (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()) as Json })); // prettier-ignore
        });
        req.on('error', reject);
        req.end(body);
      });
    for (const summary of ['ünïcödé', 'é']) {
      const answer = await raw(summary);
      t.equal(answer.status, 400, `raw ${summary}: refused, never stored clipped`);
      t.equal(answer.body['error'], 'summary_required');
    }
    const encoded = await node.call('PUT', '/config', {
      body: company('E'),
      headers: { 'x-summary': encodeURIComponent('Café: ünïcödé ✓') },
    });
    t.equal(encoded.status, 201);
    const id = (await json(encoded))['revision_id'] as string;
    t.equal((await json(await node.call('GET', `/config/revisions/${id}`)))['summary'], 'Café: ünïcödé ✓');
    const literal = await node.call('PUT', '/config', {
      body: company('L'),
      headers: { 'x-summary': '50%25 rollout' },
    });
    const literalId = (await json(literal))['revision_id'] as string;
    t.equal(
      (await json(await node.call('GET', `/config/revisions/${literalId}`)))['summary'],
      '50%25 rollout',
      'ASCII that only looks encoded stays as sent',
    );
  },
);

t.test(
  'a storing write answers 201 with revision id, epoch, warnings and derived seats and units',
  async (t) => {
    const node = await startConfigNode(t);
    const res = await node.call('PUT', '/config', { body: company(), headers: { 'x-summary': 'first' } });
    t.equal(res.status, 201);
    const body = await json(res);
    t.match(body, { revision_id: /^[0-9a-f-]{36}$/, epoch: 1, warnings: Array });
    const derived = body['derived'] as { seats: Array<{ handle: string }>; units: unknown[] };
    t.same(derived.seats.map((s) => s.handle).sort(), ['bo-agent', 'chief-agent', 'cy-agent', 'hanna-lee']);
    t.equal(derived.units.length, 2);
    const second = await json(
      await node.call('PUT', '/config', { body: company('Acme 2'), headers: { 'x-summary': 'two' } }),
    );
    t.equal(second['epoch'], 2);
  },
);

t.test(
  'GET /config is redacted, carries the ETag, answers 304 on If-None-Match and YAML on request',
  async (t) => {
    const node = await startConfigNode(t);
    const id = await first(node);
    const res = await node.call('GET', '/config');
    t.equal(res.headers.get('etag'), `"${id}"`);
    const doc = await json(res);
    const llm = (doc['providers'] as Json)['llm'] as Record<string, Json>;
    t.same(llm['main']!['api_keys'], [marker, '${ANTHROPIC_KEY}'], 'secret masked, reference visible');
    t.same(((doc['mcp_servers'] as Json[])[0]!['env'] as Json)['API_TOKEN'], marker);
    t.equal(
      ((doc['mcp_servers'] as Json[])[0]!['env'] as Json)['REGION'],
      'eu',
      'a non-secret env value stays',
    );
    t.notMatch(JSON.stringify(doc), /sk-live-secret-value|tok-123/);
    const cached = await node.call('GET', '/config', { headers: { 'if-none-match': `"${id}"` } });
    t.equal(cached.status, 304);
    const yaml = await node.call('GET', '/config?format=yaml');
    t.match(yaml.headers.get('content-type'), /yaml/);
    t.match(await yaml.text(), /name: Acme/);
  },
);

t.test('a redacted read sent back by a full PUT round-trips: the stored secrets are kept', async (t) => {
  const node = await startConfigNode(t);
  await first(node);
  const read = await json(await node.call('GET', '/config'));
  read['mission'] = 'edited';
  const put = await node.call('PUT', '/config', { body: read, headers: { 'x-summary': 'edit mission' } });
  t.equal(put.status, 201);
  const stored = node.configuration.view.state;
  const payload = (await readRevision(stored, stored.active!.revision_id))!.payload as Json;
  t.equal(payload['mission'], 'edited');
  t.same(((payload['providers'] as Json)['llm'] as Record<string, Json>)['main']!['api_keys'], [
    'sk-live-secret-value',
    '${ANTHROPIC_KEY}',
  ]);
  t.equal(((payload['mcp_servers'] as Json[])[0]!['env'] as Json)['API_TOKEN'], 'tok-123');
});

t.test(
  'preconditions: stale If-Match 409, If-None-Match * 412, both 400, If-Match with nothing active 412',
  async (t) => {
    const node = await startConfigNode(t);
    const noneActive = await node.call('PUT', '/config', {
      body: company(),
      headers: { 'x-summary': 's', 'if-match': '*' },
    });
    t.equal(noneActive.status, 412);
    t.equal((await json(noneActive))['error'], 'no_active_revision');
    const created = await node.call('PUT', '/config', {
      body: company(),
      headers: { 'x-summary': 's', 'if-none-match': '*' },
    });
    t.equal(created.status, 201, 'If-None-Match * creates when nothing is configured');
    const id = (await json(created))['revision_id'] as string;
    const again = await node.call('PUT', '/config', {
      body: company(),
      headers: { 'x-summary': 's', 'if-none-match': '*' },
    });
    t.equal(again.status, 412);
    t.equal((await json(again))['error'], 'already_configured');
    const both = await node.call('PUT', '/config', {
      body: company(),
      headers: { 'x-summary': 's', 'if-none-match': '*', 'if-match': `"${id}"` },
    });
    t.equal(both.status, 400);
    t.equal((await json(both))['error'], 'conflicting_preconditions');
    const ok = await node.call('PUT', '/config', {
      body: company('B'),
      headers: { 'x-summary': 's', 'if-match': id },
    });
    t.equal(ok.status, 201, 'a bare unquoted id is accepted');
    const stale = await node.call('PUT', '/config', {
      body: company('C'),
      headers: { 'x-summary': 's', 'if-match': `"${id}"` },
    });
    t.equal(stale.status, 409);
    const staleBody = await json(stale);
    t.equal(staleBody['error'], 'revision_advanced');
    const storedId = staleBody['stored_revision_id'] as string;
    t.match(storedId, /^[0-9a-f-]{36}$/, 'a stale If-Match names the revision it stored inactive');
    const kept = await json(await node.call('GET', `/config/revisions/${storedId}`));
    t.match(
      kept,
      { revision_id: storedId, is_active: false, parent_revision_id: id },
      'derived from what If-Match named',
    );
    const active = await node.call('GET', '/config');
    t.equal(
      active.headers.get('etag'),
      `"${(await json(ok))['revision_id'] as string}"`,
      'the active revision stays',
    );
  },
);

t.test('a write naming a ${VAR} that resolves to nothing is stored with a warning naming it', async (t) => {
  const env: Record<string, string> = { PRESENT_KEY: 'sk-present' };
  const node = await startConfigNode(t, { resolve: (name) => env[name] });
  const doc = company();
  (doc['providers'] as { llm: { main: { api_keys: string[] } } }).llm.main.api_keys = [
    '${PRESENT_KEY}',
    '${ANTHROPIC_KEY}',
  ];
  const res = await node.call('PUT', '/config', { body: doc, headers: { 'x-summary': 'keys' } });
  t.equal(res.status, 201, 'the write is stored: the secret may be put afterwards');
  const body = await json(res);
  const unresolved = (body['warnings'] as Json[]).filter((w) => w['kind'] === 'unresolved_reference');
  t.match(unresolved, [
    {
      path: 'providers.llm.main.api_keys[1]',
      segments: ['providers', 'llm', 'main', 'api_keys', 1],
      to: 'ANTHROPIC_KEY',
      message: /\$\{ANTHROPIC_KEY\} resolves to nothing/,
    },
  ]);
  t.equal(unresolved.length, 1, 'a reference that resolves is not warned');
  t.notMatch(JSON.stringify(body), /sk-present/, 'no value is ever shown');
  // Sent as YAML, the warning names its line, as validation's findings do.
  const yaml = 'name: Acme\nproviders:\n  llm:\n    main:\n      type: openai\n      model: m\n      api_keys: ["${MISSING_KEY}"]\nroles:\n  - name: Ada\n'; // prettier-ignore
  const dry = await node.call('PUT', '/config?dry_run=true', {
    body: yaml,
    headers: { 'content-type': 'application/yaml' },
  });
  const dryBody = await json(dry);
  t.match(
    (dryBody['warnings'] as Json[] | undefined)?.find((w) => w['kind'] === 'unresolved_reference'),
    { to: 'MISSING_KEY', line: 7 },
    JSON.stringify(dryBody).slice(0, 400),
  );
  env['ANTHROPIC_KEY'] = 'sk-now-set';
  const again = await node.call('PUT', '/config', { body: doc, headers: { 'x-summary': 'keys again' } });
  t.same(
    ((await json(again))['warnings'] as Json[]).filter((w) => w['kind'] === 'unresolved_reference'),
    [],
  );
});

t.test('the revision source says who wrote it: api, the svc CLI, or a reload', async (t) => {
  const node = await startConfigNode(t);
  const id = await first(node);
  const sourceOf = async (revisionId: string): Promise<unknown> =>
    (await json(await node.call('GET', `/config/revisions/${revisionId}`)))['source'];
  t.equal(await sourceOf(id), 'api');
  const viaCli = await node.call('PUT', '/config', {
    body: company('B'),
    headers: { 'x-summary': 'from the cli', 'user-agent': 'svc-cli/0.1.0' },
  });
  t.equal(viaCli.status, 201);
  t.equal(await sourceOf((await json(viaCli))['revision_id'] as string), 'cli');
  const reload = await node.call('POST', '/config/reload');
  t.equal(reload.status, 201);
  t.equal(await sourceOf((await json(reload))['revision_id'] as string), 'api.reload');
});

t.test(
  'twenty concurrent PUTs with the same If-Match: one 201, nineteen 409 naming their stored revision',
  async (t) => {
    const node = await startConfigNode(t);
    const id = await first(node);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        node.call('PUT', '/config', {
          body: company(`Race ${i}`),
          headers: { 'x-summary': `w${i}`, 'if-match': `"${id}"` },
        }),
      ),
    );
    const statuses = answers.map((a) => a.status);
    t.equal(statuses.filter((s) => s === 201).length, 1);
    t.equal(statuses.filter((s) => s === 409).length, 19);
    const bodies = await Promise.all(answers.map(json));
    for (const body of bodies.filter((b) => b['error'] === 'revision_advanced' && b['stored_revision_id'])) {
      const stored = await node.call('GET', `/config/revisions/${String(body['stored_revision_id'])}`);
      t.equal(stored.status, 200, 'a losing revision is stored and readable');
    }
    const list = await json(await node.call('GET', '/config/revisions?limit=500'));
    t.equal(
      (list['revisions'] as Json[]).filter((r) => r['is_active']).length,
      1,
      'at most one active revision',
    );
  },
);

t.test('dry_run takes true or false only and stores nothing', async (t) => {
  const node = await startConfigNode(t);
  const bad = await node.call('PUT', '/config?dry_run=yes', { body: company() });
  t.equal(bad.status, 400);
  t.equal((await json(bad))['error'], 'invalid_query');
  const dry = await node.call('PUT', '/config?dry_run=true', { body: company() });
  t.equal(dry.status, 200);
  t.match(await json(dry), { valid: true, base_revision_id: '', warnings: Array, derived: { seats: Array } });
  t.equal((await node.call('GET', '/config')).status, 404, 'nothing stored');
  const id = await first(node);
  t.match(await json(await node.call('PUT', '/config?dry_run=true', { body: company('X') })), {
    base_revision_id: id,
  });
});

t.test(
  'an invalid document is 400 validation_error with problems, and YAML problems carry their line',
  async (t) => {
    const node = await startConfigNode(t);
    const bad = company();
    (bad['roles'] as Json[]).push({ name: 'Chief Agent' });
    const res = await node.call('PUT', '/config', { body: bad, headers: { 'x-summary': 's' } });
    t.equal(res.status, 400);
    const body = await json(res);
    t.equal(body['error'], 'validation_error');
    t.ok(
      (body['problems'] as Json[]).some((p) => p['kind'] === 'conflict'),
      'duplicate handle is a conflict',
    );
    t.ok(body['derived'], 'derived is carried when the document parsed');
    const yaml = 'name: Acme\nroles:\n  - name: A\n    kind: robot\n';
    const yres = await node.call('PUT', '/config', {
      body: yaml,
      headers: { 'x-summary': 's', 'content-type': 'application/yaml' },
    });
    t.equal(yres.status, 400);
    const problem = ((await json(yres))['problems'] as Json[])[0]!;
    t.match(problem, { path: 'roles[0].kind', kind: 'unknown_value', line: 4 });
    const unparseable = await node.call('PUT', '/config', {
      body: '{"name": ',
      headers: { 'x-summary': 's' },
    });
    t.equal((await json(unparseable))['error'], 'invalid_body');
  },
);

t.test(
  'PATCH merges (null deletes), refuses unknown keys even when null, and other media types with 415',
  async (t) => {
    const node = await startConfigNode(t);
    const none = await node.call('PATCH', '/config', {
      body: { mission: 'x' },
      headers: { 'x-summary': 's' },
    });
    t.equal(none.status, 409);
    t.equal((await json(none))['error'], 'no_active_revision');
    await first(node, { ...company(), mission: 'old', vision: 'v' });
    const patch = await node.call('PATCH', '/config', {
      body: { mission: 'new', vision: null },
      headers: { 'x-summary': 'patch', 'content-type': 'application/merge-patch+json' },
    });
    t.equal(patch.status, 201);
    const doc = await json(await node.call('GET', '/config'));
    t.equal(doc['mission'], 'new');
    t.notOk('vision' in doc);
    const unknown = await node.call('PATCH', '/config', {
      body: { nonsense: null },
      headers: { 'x-summary': 's' },
    });
    t.equal(unknown.status, 400);
    t.match(await json(unknown), {
      error: 'invalid_patch',
      problems: [{ path: 'nonsense', kind: 'unknown_field' }],
    });
    // A misspelt key reads as validation of a whole document reads it: with the did-you-mean.
    const typo = await node.call('PATCH', '/config', {
      body: { misson: 'x' },
      headers: { 'x-summary': 's' },
    });
    t.equal(typo.status, 400);
    const patched = (await json(typo))['problems'] as Json[];
    t.match(patched, [{ path: 'misson', kind: 'unknown_field', message: 'unknown field `misson`; did you mean `mission`?' }]); // prettier-ignore
    const put = await node.call('PUT', '/config', {
      body: { ...company(), misson: 'x' },
      headers: { 'x-summary': 's', 'if-match': '*' },
    });
    const whole = ((await json(put))['problems'] as Json[]).find((p) => p['path'] === 'misson');
    t.equal(whole?.['message'], patched[0]?.['message'], 'the same words as a whole-document write');
    const wrongType = await node.call('PATCH', '/config', {
      body: '[]',
      headers: { 'x-summary': 's', 'content-type': 'application/json-patch+json' },
    });
    t.equal(wrongType.status, 415);
    t.equal(wrongType.headers.get('accept-patch'), 'application/merge-patch+json');
  },
);

t.test('entity routes: get, replace, identity rules, create-only, and no DELETE', async (t) => {
  const node = await startConfigNode(t);
  await first(node);
  const seat = await node.call('GET', '/config/roles/bo-agent');
  t.equal(seat.status, 200);
  t.match(await json(seat), { name: 'Bo Agent' });
  t.equal((await node.call('GET', '/config/roles/nobody')).status, 404);
  const missing = await node.call('PUT', '/config/roles/nobody', {
    body: { name: 'Nobody' },
    headers: { 'x-summary': 's' },
  });
  t.equal((await json(missing))['error'], 'no_such_entity');
  const replaced = await node.call('PUT', '/config/roles/bo-agent', {
    body: { name: 'Bo Agent', goal: 'Keep the platform up.' },
    headers: { 'x-summary': 'goal' },
  });
  t.equal(replaced.status, 201);
  t.equal((await json(await node.call('GET', '/config/roles/bo-agent')))['goal'], 'Keep the platform up.');
  const renamed = await node.call('PUT', '/config/roles/bo-agent', {
    body: { name: 'Bo Renamed' },
    headers: { 'x-summary': 's' },
  });
  t.equal((await json(renamed))['error'], 'identity_mismatch', 'an omitted handle with a changed name');
  const createSeat = await node.call('PUT', '/config/roles/new-seat', {
    body: { name: 'New Seat' },
    headers: { 'x-summary': 's', 'if-none-match': '*' },
  });
  t.equal((await json(createSeat))['error'], 'not_creatable');
  const provider = { type: 'openai', model: 'gpt-4o', api_keys: ['${OPENAI_KEY}'] };
  const created = await node.call('PUT', '/config/llm-providers/second', {
    body: provider,
    headers: { 'x-summary': 's', 'if-none-match': '*' },
  });
  t.equal(created.status, 201);
  const exists = await node.call('PUT', '/config/llm-providers/second', {
    body: provider,
    headers: { 'x-summary': 's', 'if-none-match': '*' },
  });
  t.equal(exists.status, 412);
  t.equal((await json(exists))['error'], 'entity_exists');
  const unknownField = await node.call('PUT', '/config/mcp-servers/docs', {
    body: { name: 'docs', command: 'x', colour: 'blue' },
    headers: { 'x-summary': 's' },
  });
  t.equal(unknownField.status, 400);
  t.match(await json(unknownField), { error: 'invalid_body', problems: [{ kind: 'unknown_field' }] });
  const del = await node.call('DELETE', '/config/roles/bo-agent');
  t.equal(del.status, 405);
  t.equal(del.headers.get('allow'), 'GET, PUT');
});

t.test(
  'revisions list newest first; one revision, a redacted diff, references, revert and reload',
  async (t) => {
    const node = await startConfigNode(t);
    const a = await first(node, { ...company(), mission: 'one' });
    const b = (
      await json(
        await node.call('PUT', '/config', {
          body: { ...company(), mission: 'two' },
          headers: { 'x-summary': 'two' },
        }),
      )
    )['revision_id'] as string;
    const list = await json(await node.call('GET', '/config/revisions'));
    t.same(
      (list['revisions'] as Json[]).map((r) => r['revision_id']),
      [b, a],
    );
    t.notOk(
      (list['revisions'] as Json[]).some((r) => 'payload' in r),
      'metadata only',
    );
    t.equal((await node.call('GET', '/config/revisions/00000000-0000-4000-8000-000000000000')).status, 404);
    const diff = await json(await node.call('GET', `/config/revisions/${a}/diff`));
    t.match(diff, {
      from: b,
      to: a,
      changes_total: 1,
      changes: [{ path: 'mission', kind: 'changed', from: 'two', to: 'one' }],
    });
    const refs = await json(await node.call('GET', '/config/references'));
    t.match(refs, { revision_id: b, references: [{ name: 'ANTHROPIC_KEY' }] });
    const revert = await node.call('POST', `/config/revisions/${a}/revert`, {
      headers: { 'x-summary': 'back' },
    });
    t.equal(revert.status, 201);
    t.equal((await json(await node.call('GET', '/config')))['mission'], 'one');
    const reload = await node.call('POST', '/config/reload');
    t.equal(reload.status, 201);
    t.equal((await json(reload))['epoch'], 4);
  },
);

t.test(
  'a managed document refuses writes from other credentials with 403 before anything is read',
  async (t) => {
    const node = await startConfigNode(t, { auth: { ...openAuth, companyWriters: ['ops'] } });
    await first(node);
    const other = await node.call('PUT', '/config', {
      auth: CI_TOKEN,
      body: 'not even json',
      headers: { 'x-summary': 's' },
    });
    t.equal(other.status, 403);
    t.match(await json(other), { error: 'config_managed', managed_by: ['ops'] });
    t.equal(
      (await node.call('PATCH', '/config', { auth: CI_TOKEN, body: {}, headers: { 'x-summary': 's' } }))
        .status,
      403,
    );
    t.equal((await node.call('GET', '/config', { auth: CI_TOKEN })).status, 200, 'reads stay open');
    t.equal((await node.call('POST', '/config/reload', { auth: CI_TOKEN })).status, 201, 'reload stays open');
  },
);

t.test(
  'config_audit answers revision metadata newest first; limit clamped 1..500, non-number the default',
  async (t) => {
    const node = await startConfigNode(t);
    for (let i = 0; i < 3; i += 1) {
      await node.call('PUT', '/config', { body: company(`Acme ${i}`), headers: { 'x-summary': `s${i}` } });
    }
    const all = (await json(await node.call('GET', '/query/config_audit'))) as unknown as Json[];
    t.same(
      all.map((r) => r['summary']),
      ['s2', 's1', 's0'],
    );
    t.notOk(all.some((r) => 'payload' in r));
    t.equal(((await (await node.call('GET', '/query/config_audit?limit=0')).json()) as Json[]).length, 1);
    t.equal(((await (await node.call('GET', '/query/config_audit?limit=lots')).json()) as Json[]).length, 3);
    for (const path of ['/query/config_audit?limit=0x1', '/query/config_audit?limit=1e0'])
      t.equal(((await (await node.call('GET', path)).json()) as Json[]).length, 3, `${path}: no number`);
    t.equal((await node.call('GET', '/query/config_audit', { auth: null })).status, 401, 'a token is needed');
    const unknown = await node.call('GET', '/query/no_such_question');
    t.equal(unknown.status, 404);
    t.equal((await json(unknown))['error'], 'unknown_query');
  },
);

t.test(
  '/config/revisions refuses a limit or offset it cannot read or that is out of range, naming it',
  async (t) => {
    const node = await startConfigNode(t);
    for (let i = 0; i < 3; i += 1) {
      await node.call('PUT', '/config', { body: company(`Acme ${i}`), headers: { 'x-summary': `s${i}` } });
    }
    for (const [query, name] of [
      ['limit=abc', 'limit'],
      ['limit=0x1', 'limit'],
      ['limit=1e0', 'limit'],
      ['limit=0', 'limit'],
      ['limit=501', 'limit'],
      ['limit=2.5', 'limit'],
      ['offset=-1', 'offset'],
      ['offset=1e0', 'offset'],
      ['offset=lots', 'offset'],
    ] as const) {
      const res = await node.call('GET', `/config/revisions?${query}`);
      t.equal(res.status, 400, query);
      const body = await json(res);
      t.equal(body['error'], 'bad_params', query);
      t.match(body['detail'], new RegExp(`^\`${name}\` must be an integer from`), `${query}: names ${name}`);
    }
    const page = await json(await node.call('GET', '/config/revisions?limit=500&offset=1'));
    t.match(page, { limit: 500, offset: 1, total: 3 });
    t.same(
      (page['revisions'] as Json[]).map((r) => r['summary']),
      ['s1', 's0'],
    );
    t.match(await json(await node.call('GET', '/config/revisions?limit=&offset=')), { limit: 50, offset: 0 });
  },
);

t.test('reload and revert check the node own Tier A: a native tracker needs stream.store_dir', async (t) => {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino(
    { level: 'warn' },
    { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
  );
  const node = await startConfigNode(t, { tierA: 'tracker: {backend: native}', logger });
  t.match(
    lines.find((l) => l['event'] === 'tier_a_unrunnable'),
    { problems: [/stream\.store_dir/] },
    'said at start, before any reload meets it',
  );
  await first(node);
  const reload = await node.call('POST', '/config/reload');
  t.equal(reload.status, 400);
  t.match(await json(reload), {
    error: 'validation_error',
    problems: [{ path: 'stream.store_dir', kind: 'missing' }],
  });
});

t.test(
  'a revision sealed under a key this node lacks reads as an opaque marker and cannot be reverted to',
  async (t) => {
    const node = await startConfigNode(t);
    await first(node);
    const sealedId = '00000000-0000-4000-8000-00000000beef';
    const record = {
      revision_id: sealedId,
      parent_revision_id: null,
      created_at: new Date().toISOString(),
      created_by: 'other-node',
      created_by_kind: 'node',
      source: 'api',
      summary: 'sealed elsewhere',
      payload: { __encrypted__: 'enc:v1:k-gone:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' },
    };
    await node.bus.publish(Subjects.configRevisionStored, new TextEncoder().encode(JSON.stringify(record)));
    t.ok(await node.configuration.view.until((s) => s.revisions.has(sealedId), 2_000));
    const read = await json(await node.call('GET', `/config/revisions/${sealedId}`));
    t.same(read['payload'], { encrypted: true, key_id: 'k-gone' });
    const revert = await node.call('POST', `/config/revisions/${sealedId}/revert`, {
      headers: { 'x-summary': 'back' },
    });
    t.equal(revert.status, 409);
    t.equal((await json(revert))['error'], 'unreadable_revision');
  },
);

/** Sends the head and 3 of 100 announced body bytes, never the rest; resolves with the answer. */
function unfinished(base: string, method: string, path: string, token: string) {
  return new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
    const req = request(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'content-length': '100',
      },
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          body: JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown>,
        }),
      );
    });
    req.on('error', reject);
    req.write('{"n');
  });
}

t.test('refusals that need no body answer before it arrives', async (t) => {
  const node = await startConfigNode(t, { auth: { ...openAuth, companyWriters: ['ops'] } });
  await first(node);
  const missing = await unfinished(node.base, 'PUT', '/config/roles/nobody', OPS_TOKEN);
  t.match(missing, { status: 404, body: { error: 'no_such_entity' } }, 'an id not carried');
  for (const [method, path] of [
    ['PUT', '/config'],
    ['PATCH', '/config'],
    ['PUT', '/config/roles/bo-agent'],
  ] as const) {
    const managed = await unfinished(node.base, method, path, CI_TOKEN);
    t.match(managed, { status: 403, body: { error: 'config_managed' } }, `${method} ${path} by a non-writer`);
  }
});

t.test('reload with If-Match on a node with no active revision answers 412', async (t) => {
  const node = await startConfigNode(t);
  const reload = await node.call('POST', '/config/reload', { headers: { 'if-match': '"r-1"' } });
  t.equal(reload.status, 412);
  t.equal((await json(reload))['error'], 'no_active_revision');
  t.equal((await node.call('POST', '/config/reload')).status, 409, 'without If-Match: 409');
});

t.test(
  'reload takes dry_run as revert does: a dry run stores nothing, another value is refused',
  async (t) => {
    const node = await startConfigNode(t);
    const id = await first(node);
    const dry = await node.call('POST', '/config/reload?dry_run=true');
    t.equal(dry.status, 200);
    t.match(await json(dry), { valid: true, base_revision_id: id });
    const bad = await node.call('POST', '/config/reload?dry_run=maybe');
    t.equal(bad.status, 400);
    t.equal((await json(bad))['error'], 'invalid_query');
    const revisions = (await json(await node.call('GET', '/config/revisions')))['revisions'] as Json[];
    t.same(
      revisions.map((r) => r['revision_id']),
      [id],
      'neither stored a revision',
    );
    t.equal((await node.call('GET', '/config')).headers.get('etag'), `"${id}"`, 'the active revision stays');
    const real = await node.call('POST', '/config/reload?dry_run=false');
    t.equal(real.status, 201, 'dry_run=false reloads');
  },
);

t.test('a revision diff lists at most 500 changes and counts them all in changes_total', async (t) => {
  const node = await startConfigNode(t);
  const variables = (value: string) =>
    Object.fromEntries(Array.from({ length: 600 }, (_, i) => [`v${i}`, `${value}${i}`]));
  await first(node, { ...company(), skill_variables: variables('a') });
  const put = await node.call('PUT', '/config', {
    body: { ...company(), skill_variables: variables('b') },
    headers: { 'x-summary': 'variables' },
  });
  t.equal(put.status, 201);
  const to = (await json(put))['revision_id'] as string;
  const revisions = (await json(await node.call('GET', '/config/revisions')))['revisions'] as Json[];
  const from = revisions[1]?.['revision_id'] as string;
  const diff = await json(await node.call('GET', `/config/revisions/${to}/diff?against=${from}`));
  t.equal((diff['changes'] as Json[]).length, 500);
  t.equal(diff['changes_total'], 600);
});

t.test(
  'an If-Match naming two revisions is 409 revision_advanced carrying stored_revision_id (null: nothing stored)',
  async (t) => {
    const node = await startConfigNode(t);
    const id = await first(node);
    const res = await node.call('PUT', '/config', {
      body: company('B'),
      headers: { 'x-summary': 's', 'if-match': `"${id}", "other"` },
    });
    t.equal(res.status, 409);
    const body = await json(res);
    t.equal(body['error'], 'revision_advanced');
    t.ok(Object.hasOwn(body, 'stored_revision_id'), 'the field is carried');
    t.equal(body['stored_revision_id'], null);
    t.equal((await json(await node.call('GET', '/config/revisions')))['total'], 1, 'nothing was stored');
  },
);

t.test('a dry run with a stale If-Match is 409 revision_advanced with stored_revision_id null', async (t) => {
  const node = await startConfigNode(t);
  const id = await first(node);
  const moved = await node.call('PUT', '/config', {
    body: company('B'),
    headers: { 'x-summary': 's', 'if-match': id },
  });
  t.equal(moved.status, 201);
  for (const [method, path, body] of [
    ['PUT', '/config?dry_run=true', company('C')],
    ['PATCH', '/config?dry_run=true', { name: 'C' }],
  ] as const) {
    const res = await node.call(method, path, { body, headers: { 'if-match': `"${id}"` } });
    t.equal(res.status, 409, method);
    const answer = await json(res);
    t.equal(answer['error'], 'revision_advanced', method);
    t.ok(Object.hasOwn(answer, 'stored_revision_id'), `${method}: the field is carried`);
    t.equal(answer['stored_revision_id'], null, `${method}: a dry run stores nothing`);
  }
});
