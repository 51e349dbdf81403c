import { seal, keyringFrom } from '../../bus/index.js';
import t from 'tap';
import { openConnection } from '../harness/raw-http.js';
import { keyringYaml, startSecretsNode } from './fixtures/secrets-node.js';
import { CI, openAuth } from './fixtures/gateway-harness.js';
import { secretAad } from '../../schema/index.js';

type Json = Record<string, unknown>;
const json = async (res: Response): Promise<Json> => (await res.json()) as Json;
const K1 = keyringYaml('k1', ['k1', 1]);

t.test('every /secrets route needs a token, reads included', async (t) => {
  const node = await startSecretsNode(t, { tierA: K1 });
  for (const [method, path] of [
    ['GET', '/secrets'],
    ['GET', '/secrets/A'],
    ['GET', '/secrets/A?reveal=true'],
    ['PUT', '/secrets/A'],
    ['DELETE', '/secrets/A'],
    ['POST', '/secrets/rekey'],
  ] as const) {
    const res = await node.call(method, path, { auth: null, ...(method === 'PUT' ? { body: 'v' } : {}) });
    t.equal(res.status, 401, `${method} ${path}`);
    t.equal((await json(res))['error'], 'invalid_token');
  }
  t.same(await node.bucket.keys(), [], 'nothing was stored');
});

t.test(
  'on a managed document only its writers set or remove secrets (the store answers its references)',
  async (t) => {
    const node = await startSecretsNode(t, { tierA: K1, auth: { ...openAuth, companyWriters: ['ops'] } });
    t.equal((await node.call('PUT', '/secrets/BOB_ID', { body: 'bobs' })).status, 200, 'a writer sets one');
    for (const [method, path] of [
      ['PUT', '/secrets/BOB_ID'],
      ['PUT', '/secrets/NEW_NAME'],
      ['DELETE', '/secrets/BOB_ID'],
    ] as const) {
      const res = await node.call(method, path, { auth: CI, ...(method === 'PUT' ? { body: 'ci' } : {}) });
      t.equal(res.status, 403, `${method} ${path} by a non-writer`);
      t.match(await json(res), { error: 'config_managed', managed_by: ['ops'], detail: /secret store/ });
    }
    const reveal = await node.call('GET', '/secrets/BOB_ID?reveal=true', { auth: CI });
    t.equal(await reveal.text(), 'bobs', 'the value stands; reads stay open to every operator');
    t.equal((await node.call('GET', '/secrets/NEW_NAME', { auth: CI })).status, 404, 'nothing pre-seeded');
    t.equal((await node.call('POST', '/secrets/rekey', { auth: CI })).status, 200, 'rekey changes no value');
    t.equal((await node.call('DELETE', '/secrets/BOB_ID')).status, 200, 'a writer removes one');
  },
);

t.test('a stored secret is listed and read by name with its record, never its value', async (t) => {
  const node = await startSecretsNode(t, { tierA: K1 });
  const put = await node.call('PUT', '/secrets/TRACKER_TOKEN', { body: 'trk-value-8c1f4e' });
  t.equal(put.status, 200);
  const record = await json(put);
  t.match(record, { name: 'TRACKER_TOKEN', key_id: 'k1', updated_by: 'ops', source: 'api' });
  t.ok(Number.isFinite(Date.parse(String(record['updated_at']))));
  await node.call('PUT', '/secrets/A_FIRST?source=cli', { body: 'other', auth: CI });
  const list = await node.call('GET', '/secrets');
  t.equal(list.headers.get('cache-control'), 'no-store');
  const text = await list.text();
  t.notMatch(text, /trk-value-8c1f4e|enc:v1/);
  const rows = (JSON.parse(text) as { secrets: Json[] }).secrets;
  t.same(
    rows.map((r) => r['name']),
    ['A_FIRST', 'TRACKER_TOKEN'],
  );
  t.match(rows[0], { source: 'cli', updated_by: 'ci', key_id: 'k1' });
  t.same(Object.keys(rows[1]!).sort(), ['key_id', 'name', 'source', 'updated_at', 'updated_by']);
  const one = await node.call('GET', '/secrets/TRACKER_TOKEN');
  t.equal(one.status, 200);
  t.same(await json(one), record);
  const missing = await node.call('GET', '/secrets/NOT_SET');
  t.equal(missing.status, 404);
  t.match(await json(missing), {
    error: 'not_found',
    hint: /GET \/secrets .* lists the stored names/,
  });
  t.notMatch(
    (await json(await node.call('GET', '/secrets/NOT_SET')))['hint'],
    /history/,
    'no event-window hint',
  );
});

t.test(
  'reveal answers the exact bytes with no-store and logs the name and operator, not the value',
  async (t) => {
    const node = await startSecretsNode(t, { tierA: K1 });
    const bytes = Buffer.from([0x00, 0xff, 0x0a, 0xc3, 0x28, 0x72, 0x65, 0x76]);
    t.equal((await node.call('PUT', '/secrets/BIN_VALUE', { body: bytes })).status, 200);
    const shown = await node.call('GET', '/secrets/BIN_VALUE?reveal=true', { auth: CI });
    t.equal(shown.status, 200);
    t.equal(shown.headers.get('cache-control'), 'no-store');
    t.equal(shown.headers.get('content-type'), 'application/octet-stream');
    t.same(Buffer.from(await shown.arrayBuffer()), bytes);
    const line = await node.harness.waitForLog((l) => l['event'] === 'secret_revealed');
    t.match(line, { name: 'BIN_VALUE', operator: 'ci' });
    await node.call('PUT', '/secrets/TEXT_VALUE', { body: 'reveal-me-4d2a9b' });
    t.equal(await (await node.call('GET', '/secrets/TEXT_VALUE?reveal=true')).text(), 'reveal-me-4d2a9b');
    t.notMatch(node.harness.rawLogs(), /reveal-me-4d2a9b/);
    t.equal(
      (await node.call('GET', '/secrets/TEXT_VALUE?reveal=false')).headers.get('content-type'),
      'application/json; charset=utf-8',
    );
    const bad = await node.call('GET', '/secrets/TEXT_VALUE?reveal=yes');
    t.equal(bad.status, 400);
    t.equal((await json(bad))['error'], 'invalid_query');
    t.equal((await node.call('GET', '/secrets/NOPE?reveal=true')).status, 404);
  },
);

t.test(
  'a name outside the grammar is 400 invalid_name on every route, before any body is read',
  async (t) => {
    const node = await startSecretsNode(t, { tierA: K1 });
    for (const name of ['1STARTS_WITH_DIGIT', 'HAS-DASH', 'has.dot', 'x'.repeat(129), '%C3%A9t%C3%A9']) {
      for (const method of ['GET', 'PUT', 'DELETE']) {
        const res = await node.call(method, `/secrets/${name}`, method === 'PUT' ? { body: 'v' } : {});
        t.equal(res.status, 400, `${method} ${name.slice(0, 20)}`);
        t.equal((await json(res))['error'], 'invalid_name');
      }
    }
    // A body that is too large, and one that never finishes: the name is refused at once all the same.
    // A name too long says so: it fits the grammar otherwise.
    const long = await json(await node.call('GET', `/secrets/${'X'.repeat(129)}`));
    t.match(long['detail'], /at most 128 characters/);
    const big = await node.call('PUT', '/secrets/BAD-NAME', { body: 'x'.repeat(200 * 1024) });
    t.equal((await json(big))['error'], 'invalid_name');
    const conn = await openConnection(node.harness.gw.port);
    t.teardown(() => conn.close());
    conn.write(
      `PUT /secrets/9LIVES HTTP/1.1\r\nHost: x\r\nAuthorization: ${CI}\r\nContent-Length: 1000\r\n\r\npartial`,
    );
    const answer = await conn.response();
    t.equal(answer.status, 400);
    t.equal((JSON.parse(answer.body) as Json)['error'], 'invalid_name');
    t.same(await node.bucket.keys(), []);
  },
);

t.test('values up to 64 KiB are accepted; a larger one is refused with the limit named', async (t) => {
  const node = await startSecretsNode(t, { tierA: K1 });
  const limit = Buffer.alloc(64 * 1024, 0x61);
  t.equal((await node.call('PUT', '/secrets/AT_LIMIT', { body: limit })).status, 200);
  t.same(Buffer.from(await (await node.call('GET', '/secrets/AT_LIMIT?reveal=true')).arrayBuffer()), limit);
  const over = await node.call('PUT', '/secrets/OVER_LIMIT', { body: Buffer.alloc(64 * 1024 + 1, 0x61) });
  t.equal(over.status, 413);
  t.match(await json(over), {
    error: 'body_too_large',
    max_bytes: 65536,
    detail: /larger than this route accepts \(65536 bytes, 64 KiB\)/,
    hint: /64 KiB/,
  });
  t.equal((await node.call('GET', '/secrets/OVER_LIMIT')).status, 404);
  const empty = await node.call('PUT', '/secrets/EMPTY_VALUE', { body: '' });
  t.equal(empty.status, 200, 'an empty value is a value');
  t.equal(await (await node.call('GET', '/secrets/EMPTY_VALUE?reveal=true')).text(), '');
});

t.test('?source= names where a value came from; a malformed one is refused', async (t) => {
  const node = await startSecretsNode(t, { tierA: K1 });
  t.match(await json(await node.call('PUT', '/secrets/S1?source=setup', { body: 'v' })), { source: 'setup' });
  const bad = await node.call('PUT', '/secrets/S2?source=Not%20Valid', { body: 'v' });
  t.equal(bad.status, 400);
  t.equal((await json(bad))['error'], 'invalid_query');
  t.equal((await node.call('GET', '/secrets/S2')).status, 404);
});

t.test('a put replaces the value; delete answers whether it removed something', async (t) => {
  const node = await startSecretsNode(t, { tierA: K1 });
  await node.call('PUT', '/secrets/ROTATING', { body: 'first' });
  await node.call('PUT', '/secrets/ROTATING', { body: 'second' });
  t.equal(await (await node.call('GET', '/secrets/ROTATING?reveal=true')).text(), 'second');
  const removed = await node.call('DELETE', '/secrets/ROTATING');
  t.equal(removed.status, 200);
  t.same(await json(removed), { removed: true });
  t.equal((await node.call('GET', '/secrets/ROTATING')).status, 404);
  t.same(await json(await node.call('DELETE', '/secrets/ROTATING')), { removed: false });
});

t.test(
  'rekey with key_id naming another key is 409 key_not_active; naming the active key moves nothing new',
  async (t) => {
    const node = await startSecretsNode(t, { tierA: keyringYaml('k2', ['k1', 1], ['k2', 2]) });
    const old = keyringFrom({
      active_key_id: 'k1',
      keys: [{ id: 'k1', material: Buffer.alloc(32, 1).toString('base64') }],
    })!;
    const record = {
      v: 1,
      name: 'LEGACY',
      sealed: seal(old, 'legacy-value', secretAad('LEGACY')),
      key_id: 'k1',
      updated_at: new Date().toISOString(),
      updated_by: 'ops',
      source: 'api',
    };
    await node.bucket.put('LEGACY', new TextEncoder().encode(JSON.stringify(record)));
    await node.secrets.view.until((s) => s.entries.has('LEGACY'), 30_000);
    const refused = await node.call('POST', '/secrets/rekey?key_id=k1');
    t.equal(refused.status, 409);
    t.match(await json(refused), { error: 'key_not_active', active_key_id: 'k2' });
    const unknown = await node.call('POST', '/secrets/rekey?key_id=nope');
    t.equal(unknown.status, 409);
    const moved = await node.call('POST', '/secrets/rekey?key_id=k2');
    t.equal(moved.status, 200);
    t.same(await json(moved), { key_id: 'k2', moved: ['LEGACY'], unreadable: [] });
    t.equal(
      (await json(await node.call('GET', '/secrets/LEGACY')))['key_id'],
      'k2',
      'the read that follows sees the move',
    );
    t.same(await json(await node.call('POST', '/secrets/rekey')), {
      key_id: 'k2',
      moved: [],
      unreadable: [],
    });
  },
);

t.test('a record sealed under a key this node lacks reads as its record but does not reveal', async (t) => {
  const node = await startSecretsNode(t, { tierA: K1 });
  const other = keyringFrom({
    active_key_id: 'k9',
    keys: [{ id: 'k9', material: Buffer.alloc(32, 9).toString('base64') }],
  })!;
  const record = {
    v: 1,
    name: 'FOREIGN',
    sealed: seal(other, 'x', secretAad('FOREIGN')),
    key_id: 'k9',
    updated_at: new Date().toISOString(),
    updated_by: 'ops',
    source: 'api',
  };
  await node.bucket.put('FOREIGN', new TextEncoder().encode(JSON.stringify(record)));
  await node.secrets.view.until((s) => s.entries.has('FOREIGN'), 30_000);
  t.match(await json(await node.call('GET', '/secrets/FOREIGN')), { key_id: 'k9' });
  const reveal = await node.call('GET', '/secrets/FOREIGN?reveal=true');
  t.equal(reveal.status, 409);
  t.match(await json(reveal), { error: 'unreadable_secret', key_id: 'k9' });
  t.match(await json(await node.call('POST', '/secrets/rekey')), { moved: [], unreadable: ['FOREIGN'] });
});

t.test('without a keyring every route that seals or opens answers 503 no_keyring', async (t) => {
  const node = await startSecretsNode(t);
  for (const [method, path] of [
    ['PUT', '/secrets/A_NAME'],
    ['GET', '/secrets/A_NAME?reveal=true'],
    ['POST', '/secrets/rekey'],
  ] as const) {
    const res = await node.call(method, path, method === 'PUT' ? { body: 'v' } : {});
    t.equal(res.status, 503, `${method} ${path}`);
    t.equal((await json(res))['error'], 'no_keyring');
  }
  t.same(await json(await node.call('GET', '/secrets')), { secrets: [] }, 'listing opens nothing');
  t.equal((await node.call('GET', '/secrets/A_NAME')).status, 404);
  t.same(await json(await node.call('DELETE', '/secrets/A_NAME')), { removed: false });
});
