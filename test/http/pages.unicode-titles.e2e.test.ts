/**
 * A page title is one text however its accents are encoded (ops/knowledge-base.md "Pages"): `Café` sent
 * precomposed (U+00E9) and decomposed (`e` + U+0301) is the same title on a served node. A write stores
 * it composed (NFC), so the second form is refused 409 `page_title_taken`, `CONTAINER/Title` in either
 * form reads the one page, a rename to the other form changes nothing, and the 255-character limit
 * counts the composed title.
 */
import t from 'tap';
import { applyNativeWork, nativeBackends, nativeWorkCompany } from '../harness/native-work.js';
import { bootNode, storeDir, type BootedNode } from '../harness/serve-store.js';
import { until } from '../harness/until.js';

type Json = Record<string, unknown>;

const COMPOSED = 'Caf\u00e9 menu';
const DECOMPOSED = 'Cafe\u0301 menu';

async function send(node: BootedNode, method: string, path: string, body?: Json) {
  const res = await node.call(method, path, {
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    headers: { 'content-type': 'application/json' },
  });
  return { status: res.status, json: (await res.json()) as Json };
}

t.test('a title sent precomposed or decomposed is one title on a served node', async (t) => {
  const node = await bootNode(t, storeDir(t), nativeBackends);
  await applyNativeWork(t, [node.url], nativeWorkCompany(), 'unicode titles');
  await until(
    async () => (await node.call('GET', '/containers')).text(),
    (c) => c.includes('"ENG"'),
  );

  const made = await send(node, 'POST', '/pages', { container: 'ENG', title: DECOMPOSED });
  t.equal(made.status, 201, JSON.stringify(made.json));
  const id = made.json['page_id'] as string;
  t.equal((made.json['page'] as Json)['title'], COMPOSED, 'stored composed (NFC)');

  const twin = await send(node, 'POST', '/pages', { container: 'ENG', title: COMPOSED });
  t.equal(twin.status, 409, 'the other encoding of the same title is taken');
  t.equal(twin.json['error'], 'page_title_taken');

  for (const form of [COMPOSED, DECOMPOSED]) {
    const read = await send(node, 'GET', `/pages/ENG/${encodeURIComponent(form)}`);
    t.equal(read.status, 200, `read by ${JSON.stringify(form)}`);
    t.equal(read.json['id'], id, 'the one page');
    const under = await send(node, 'GET', `/pages?parent=${encodeURIComponent(`ENG/${form}`)}`);
    t.equal(under.status, 200, 'a parent filter names it in either form');
  }

  const renamed = await send(node, 'PATCH', `/pages/${id}`, { title: DECOMPOSED });
  t.equal(renamed.status, 200);
  t.equal(renamed.json['version'], 1, 'renaming to the same title in the other form makes no revision');

  const other = await send(node, 'POST', '/pages', { container: 'ENG', title: 'Other' });
  const clash = await send(node, 'PATCH', `/pages/${other.json['page_id'] as string}`, { title: DECOMPOSED });
  t.equal(clash.status, 409, 'a rename onto the other encoding is a taken title');
  t.equal(clash.json['error'], 'page_title_taken');

  const child = await send(node, 'POST', '/pages', {
    container: 'ENG',
    title: 'Child',
    parent: `ENG/${DECOMPOSED}`,
  });
  t.equal(child.status, 201, 'a parent named in the other form is found');
  t.equal((child.json['page'] as Json)['parent_id'], id);

  // 255 accented letters: 510 code points as sent decomposed, 255 characters composed.
  const long = await send(node, 'POST', '/pages', { container: 'ENG', title: 'e\u0301'.repeat(255) });
  t.equal(long.status, 201, 'the limit counts the composed title');
  t.equal((long.json['page'] as Json)['title'], '\u00e9'.repeat(255));
});
