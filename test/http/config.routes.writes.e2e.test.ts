// /config writes: the summary, what a body may carry, what a stored write answers, dry runs and PATCH.
import t from 'tap';
import { request } from 'node:http';
import {
  company,
  firstRevision,
  json,
  OPS_TOKEN,
  startConfigNode,
  type Json,
} from './fixtures/config-node.js';

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
  const id = await firstRevision(node);
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
  'reload and revert take at most a summary in their body: a document is refused 400 invalid_body, nothing stored',
  async (t) => {
    const node = await startConfigNode(t);
    const id = await firstRevision(node);
    const count = async (): Promise<unknown> =>
      (await json(await node.call('GET', '/config/revisions')))['total'];
    for (const path of ['/config/reload', `/config/revisions/${id}/revert`]) {
      for (const body of [
        'name: Other\n',
        { name: 'Other' },
        { _summary: 'x', name: 'Other' },
        { _summary: 3 },
        [],
      ]) {
        const res = await node.call('POST', path, { body, headers: { 'x-summary': 's' } });
        t.equal(res.status, 400, `${path} with ${JSON.stringify(body)}`);
        t.match(await json(res), {
          error: 'invalid_body',
          detail: /takes no document/,
          problems: [{ path: '', kind: 'shape' }],
        });
      }
    }
    t.equal(await count(), 1, 'nothing was stored');
    const empty = await node.call('POST', '/config/reload', { body: '' });
    t.equal(empty.status, 201, 'an empty body is no body');
    const none = await node.call('POST', '/config/reload', { body: {} });
    t.equal(none.status, 201, '{} is no body');
    const summed = await node.call('POST', `/config/revisions/${id}/revert`, {
      body: { _summary: 'back to the first' },
    });
    t.equal(summed.status, 201, 'a summary alone is taken');
    const summedId = (await json(summed))['revision_id'] as string;
    const meta = await json(await node.call('GET', `/config/revisions/${summedId}`));
    t.equal(meta['summary'], 'back to the first', 'as the revision summary');
  },
);

t.test('dry_run takes true or false only and stores nothing', async (t) => {
  const node = await startConfigNode(t);
  const bad = await node.call('PUT', '/config?dry_run=yes', { body: company() });
  t.equal(bad.status, 400);
  const refusal = await json(bad);
  t.equal(refusal['error'], 'invalid_query');
  t.match(refusal['hint'], /dry_run=true/, 'the hint says what dry_run takes');
  t.notMatch(refusal['hint'], /events|before_id/, 'and nothing about another route');
  const dry = await node.call('PUT', '/config?dry_run=true', { body: company() });
  t.equal(dry.status, 200);
  t.match(await json(dry), { valid: true, base_revision_id: '', warnings: Array, derived: { seats: Array } });
  t.equal((await node.call('GET', '/config')).status, 404, 'nothing stored');
  const id = await firstRevision(node);
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
    await firstRevision(node, { ...company(), mission: 'old', vision: 'v' });
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

t.test(
  'a /config route refuses a query parameter it does not read, so a misspelt dry_run stores nothing',
  async (t) => {
    const node = await startConfigNode(t);
    const id = await firstRevision(node);
    const patch = { body: { mission: 'typo' }, headers: { 'x-summary': 's' } };
    const writes: Array<[string, string, unknown]> = [
      ['PUT', '/config?dryRun=true', { body: company('T'), headers: { 'x-summary': 's' } }],
      ['PATCH', '/config?dry-run=true', patch],
      ['PUT', '/config/llm-providers/main?dryrun=true', { body: { type: 'openai', model: 'x' }, headers: { 'x-summary': 's' } }], // prettier-ignore
      ['POST', `/config/revisions/${id}/revert?dry_rn=true`, {}],
      ['POST', '/config/reload?dryRun=true', {}],
    ];
    for (const [method, path, opts] of writes) {
      const res = await node.call(method, path, opts as Parameters<typeof node.call>[2]);
      t.equal(res.status, 400, `${method} ${path}`);
      t.match(await json(res), { error: 'bad_params', detail: /dry_run/ }, 'naming the parameter meant');
    }
    const history = await json(await node.call('GET', '/config/revisions'));
    t.equal(history['total'], 1, 'nothing stored');
    const reads = [
      '/config?fromat=yaml',
      '/config/revisions?limt=5',
      `/config/revisions/${id}?format=yaml`,
      `/config/revisions/${id}/diff?agains=active`,
      '/config/references?x=1',
      '/config/roles/bo-agent?format=yaml',
    ];
    for (const path of reads) {
      const res = await node.call('GET', path);
      t.equal(res.status, 400, `GET ${path}`);
      t.equal(res.headers.get('cache-control'), 'no-store');
      t.equal((await json(res))['error'], 'bad_params');
    }
    const meant = [
      '/config?format=yaml',
      '/config/revisions?limit=5&offset=0',
      `/config/revisions/${id}/diff?against=active`,
      '/config/references',
      '/config/roles/bo-agent',
    ];
    for (const path of meant) t.equal((await node.call('GET', path)).status, 200, `GET ${path}`);
  },
);

t.test(
  'a YAML value behind a tag the parser does not know is refused at its line, never stored as what follows the tag',
  async (t) => {
    const node = await startConfigNode(t);
    const id = await firstRevision(node);
    // An unquoted password starting with `!` is a YAML tag: the value read would be '' or the text after a space.
    const cases = [
      'name: Acme\nintegrations:\n  codehost_a:\n    webhook_secret: !S3cr3t-canary\n',
      'name: Acme\nintegrations:\n  codehost_a:\n    webhook_secret: !S3cr3t-canary tail\n',
      'name: Acme\nintegrations:\n  codehost_a:\n    webhook_secret: !!int S3cr3t-canary\n',
      'name: Acme\nintegrations: !S3cr3t-canary\n  codehost_a:\n    webhook_secret: w\n',
    ];
    for (const body of cases) {
      for (const query of ['', '?dry_run=true']) {
        const res = await node.call('PUT', `/config${query}`, {
          body,
          headers: { 'x-summary': 's', 'content-type': 'application/yaml' },
        });
        t.equal(res.status, 400, `${JSON.stringify(body)}${query}`);
        const text = await res.text();
        t.notMatch(text, /canary/, 'the tag is not quoted back');
        t.match(JSON.parse(text), {
          error: 'invalid_body',
          problems: [
            {
              kind: 'invalid',
              line: body.startsWith('name: Acme\nintegrations: !') ? 2 : 4,
              message: /quote/,
            },
          ],
        });
      }
    }
    const history = await json(await node.call('GET', '/config/revisions'));
    t.equal(history['total'], 1, 'nothing stored');
    const known = await node.call('PUT', '/config?dry_run=true', {
      body: 'name: !!str Acme\nmission: !!str 5\n',
      headers: { 'content-type': 'application/yaml', 'if-match': id },
    });
    t.equal(known.status, 200, 'a tag of the core schema still reads');
  },
);

t.test('a body opening with a byte order mark reads as without it, JSON as YAML', async (t) => {
  const node = await startConfigNode(t);
  // RFC 8259 8.1 lets a parser ignore it; Windows tools write one (PowerShell's UTF-8 encodings).
  const bom = '\uFEFF';
  const put = await node.call('PUT', '/config', {
    body: `${bom}${JSON.stringify(company())}`,
    headers: { 'x-summary': 'first', 'content-type': 'application/json' },
  });
  t.equal(put.status, 201, 'a JSON document');
  const patch = await node.call('PATCH', '/config', {
    body: `${bom}{"mission":"m"}`,
    headers: { 'x-summary': 'p', 'content-type': 'application/merge-patch+json' },
  });
  t.equal(patch.status, 201, 'a merge patch');
  const entity = await node.call('PUT', '/config/roles/bo-agent', {
    body: `${bom}{"name":"Bo Agent","goal":"g"}`,
    headers: { 'x-summary': 'e', 'content-type': 'application/json' },
  });
  t.equal(entity.status, 201, 'an entity');
  const yaml = await node.call('PUT', '/config?dry_run=true', {
    body: `${bom}name: Acme\r\nmission: m\r\n`,
    headers: { 'content-type': 'application/yaml' },
  });
  t.equal(yaml.status, 200, 'a YAML document with CRLF lines');
  t.equal((await json(await node.call('GET', '/config')))['mission'], 'm');
});
