/**
 * Key rotation end to end (spec "Authentication" 10) on real `svc serve` children over one store:
 * add a key and make it active, restart, rekey the store, reload the document, drop the old key,
 * restart — everything still reads.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { company } from '../http/fixtures/config-node.js';
import { keyringYaml } from '../http/fixtures/secrets-node.js';
import { freePort } from '../harness/child.js';
import { bootNode, startChild, storeDir, type StoreDir } from '../harness/serve-store.js';

type Json = Record<string, unknown>;
const json = async (res: Response): Promise<Json> => (await res.json()) as Json;

/** Every byte the store directory holds (SQLite files and WAL), as latin1 text to search. */
function storeText(store: StoreDir): string {
  return readdirSync(store.storeDir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => readFileSync(join(entry.parentPath, entry.name)).toString('latin1'))
    .join('\n');
}

t.test('rotation: new active key, rekey, reload, old key dropped, everything still reads', async (t) => {
  const store = storeDir(t);
  // 1. a node under k1 with a sealed document and two secrets
  const first = await bootNode(t, store, keyringYaml('k1', ['k1', 1]));
  const put = await first.call('PUT', '/config', {
    body: JSON.stringify(company()),
    headers: { 'content-type': 'application/json', 'x-summary': 'first' },
  });
  t.equal(put.status, 201);
  t.equal((await first.call('PUT', '/secrets/TRACKER_TOKEN', { body: 'rotate-me-one' })).status, 200);
  t.equal((await first.call('PUT', '/secrets/CHAT_SECRET', { body: 'rotate-me-two' })).status, 200);
  t.equal(await first.stop(), 0);

  // 2. k2 added and made active, k1 kept: the node restarts and still reads what k1 sealed
  const second = await bootNode(t, store, keyringYaml('k2', ['k1', 1], ['k2', 2]));
  t.equal((await json(await second.call('GET', '/config')))['name'], 'Acme');
  t.same(
    ((await json(await second.call('GET', '/secrets'))) as { secrets: Json[] }).secrets.map(
      (s) => s['key_id'],
    ),
    ['k1', 'k1'],
  );
  // 3. rekey the store, reload the document
  const rekey = await second.call('POST', '/secrets/rekey?key_id=k2');
  t.equal(rekey.status, 200);
  t.same(await json(rekey), { key_id: 'k2', moved: ['CHAT_SECRET', 'TRACKER_TOKEN'], unreadable: [] });
  const reload = await second.call('POST', '/config/reload');
  t.equal(reload.status, 201);
  const active = (await json(reload))['revision_id'] as string;
  t.equal(await second.stop(), 0);
  t.match(storeText(store), /enc:v1:k2:/, 'the store now holds records sealed under k2');

  // 4. k1 dropped: boots, and the document and every secret read
  const third = await bootNode(t, store, keyringYaml('k2', ['k2', 2]));
  const doc = await json(await third.call('GET', '/config'));
  t.equal(doc['name'], 'Acme');
  t.equal((await third.call('GET', `/config/revisions/${active}`)).status, 200);
  const rows = ((await json(await third.call('GET', '/secrets'))) as { secrets: Json[] }).secrets;
  t.same(
    rows.map((s) => [s['name'], s['key_id']]),
    [
      ['CHAT_SECRET', 'k2'],
      ['TRACKER_TOKEN', 'k2'],
    ],
  );
  t.equal(await (await third.call('GET', '/secrets/TRACKER_TOKEN?reveal=true')).text(), 'rotate-me-one');
  t.equal(await (await third.call('GET', '/secrets/CHAT_SECRET?reveal=true')).text(), 'rotate-me-two');
  t.same(await json(await third.call('POST', '/secrets/rekey')), { key_id: 'k2', moved: [], unreadable: [] });
  t.equal(await third.stop(), 0);
});

t.test('dropping the old key before the document is reloaded refuses to boot, naming the key', async (t) => {
  const store = storeDir(t);
  const first = await bootNode(t, store, keyringYaml('k1', ['k1', 1]));
  const put = await first.call('PUT', '/config', {
    body: JSON.stringify(company()),
    headers: { 'content-type': 'application/json', 'x-summary': 'first' },
  });
  t.equal(put.status, 201);
  t.equal(await first.stop(), 0);
  const refused = startChild(t, store, keyringYaml('k2', ['k2', 2]), {}, await freePort());
  t.not(await refused.exited, 0);
  t.match(refused.stderr() + refused.stdout(), /k1/);
});
