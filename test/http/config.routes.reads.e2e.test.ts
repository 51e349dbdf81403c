// /config reads: before the first revision, the token they need, redaction and the audit query.
import { readRevision } from '../../projections/index.js';
import t from 'tap';
import { company, firstRevision, json, startConfigNode, type Json } from './fixtures/config-node.js';

const marker = { encrypted: true, key_id: null };

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

t.test(
  'GET /config is redacted, carries the ETag, answers 304 on If-None-Match and YAML on request',
  async (t) => {
    const node = await startConfigNode(t);
    const id = await firstRevision(node);
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

t.test(
  'GET /config/references and an entity read answer 304 on If-None-Match naming the active revision',
  async (t) => {
    const node = await startConfigNode(t);
    const id = await firstRevision(node);
    for (const path of ['/config/references', '/config/roles/bo-agent']) {
      const first = await node.call('GET', path);
      t.equal(first.headers.get('etag'), `"${id}"`, `${path}: ETag is the active revision`);
      const cached = await node.call('GET', path, { headers: { 'if-none-match': `"${id}"` } });
      t.equal(cached.status, 304, `${path}: unchanged`);
      t.equal(cached.headers.get('etag'), `"${id}"`);
      t.equal(cached.headers.get('cache-control'), 'no-store');
      const other = await node.call('GET', path, { headers: { 'if-none-match': '"another"' } });
      t.equal(other.status, 200, `${path}: another tag reads in full`);
    }
  },
);

t.test('a redacted read sent back by a full PUT round-trips: the stored secrets are kept', async (t) => {
  const node = await startConfigNode(t);
  await firstRevision(node);
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
  'an LLM base_url carrying a login is stored, read with its password masked, and kept by a round trip',
  async (t) => {
    const node = await startConfigNode(t);
    const doc = company();
    const llm = (doc['providers'] as Json)['llm'] as Record<string, Json>;
    llm['local'] = {
      type: 'openai-compatible',
      model: 'm-1',
      base_url: 'https://proxy:pw-9f2e@llm.example/v1',
    };
    await firstRevision(node, doc);
    for (const path of ['/config', '/config?format=yaml', '/config/llm-providers/local', '/query/config']) {
      const text = await (await node.call('GET', path)).text();
      t.notMatch(text, /pw-9f2e/, `${path} shows no password`);
      t.match(text, /proxy:\*\*\*@llm\.example\/v1/, `${path} shows the URL`);
    }
    const entity = await json(await node.call('GET', '/config/llm-providers/local'));
    const put = await node.call('PUT', '/config/llm-providers/local', {
      body: { ...entity, timeout_seconds: 30 },
      headers: { 'x-summary': 'timeout' },
    });
    t.equal(put.status, 201);
    const stored = node.configuration.view.state;
    const payload = (await readRevision(stored, stored.active!.revision_id))!.payload as Json;
    t.equal(
      (((payload['providers'] as Json)['llm'] as Record<string, Json>)['local'] as Json)['base_url'],
      'https://proxy:pw-9f2e@llm.example/v1',
    );
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
