// Free-form maps of the company document (an extension's settings, a seat's sandbox beyond its typed keys):
// PATCH merges inside them at any depth (RFC 7396) and a full PUT replaces them, nothing carried back.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { company, firstRevision, json, startConfigNode, type Json } from './fixtures/config-node.js';

const vectors = JSON.parse(
  readFileSync(new URL('../../../shared/vectors/signatures.json', import.meta.url), 'utf8'),
) as { json_merge_patch_rfc7396_appendix_a: Array<[unknown, unknown, unknown]> };

t.test(
  'PATCH /config merges per RFC 7396 inside an extension settings map: every Appendix A vector',
  async (t) => {
    const node = await startConfigNode(t);
    await firstRevision(node);
    const cases = vectors.json_merge_patch_rfc7396_appendix_a;
    t.equal(cases.length, 15);
    // Each vector's target sits at extensions.e.v (a settings value may be any JSON); a null patch there
    // deletes `v`, as merging {v: null} does.
    for (const [target, patch, result] of cases) {
      const label = JSON.stringify([target, patch]);
      const put = await node.call('PUT', '/config', {
        body: { ...company(), extensions: { e: { v: target } } },
        headers: { 'x-summary': 'vector target' },
      });
      t.equal(put.status, 201, `PUT target ${label}`);
      const res = await node.call('PATCH', '/config', {
        body: JSON.stringify({ extensions: { e: { v: patch } } }),
        headers: { 'x-summary': 'vector patch', 'content-type': 'application/merge-patch+json' },
      });
      t.equal(res.status, 201, `PATCH ${label}: ${res.status === 201 ? '' : await res.text()}`);
      const stored = (await json(await node.call('GET', '/config')))['extensions'] as Json;
      t.same(stored, { e: patch === null ? {} : { v: result } }, label);
    }
  },
);

t.test('a full PUT replaces a free settings map: a nested key it leaves out is removed', async (t) => {
  const node = await startConfigNode(t);
  const sandbox = (image: Json): Json => ({ default_coding_agent: 'claude', image });
  const withMaps = (channel: Json, image: Json): Json => {
    const doc = company();
    const roles = doc['roles'] as Json[];
    return { ...doc, roles: [{ ...roles[0], sandbox: sandbox(image) }], extensions: { notes: { channel } } };
  };
  await firstRevision(node, withMaps({ name: 'x', old: true }, { tag: 'a', extra: 1 }));
  const put = await node.call('PUT', '/config', {
    body: withMaps({ name: 'x' }, { tag: 'a' }),
    headers: { 'x-summary': 'drop nested keys' },
  });
  t.equal(put.status, 201);
  const read = await json(await node.call('GET', '/config'));
  t.same(read['extensions'], { notes: { channel: { name: 'x' } } });
  t.same((read['roles'] as Json[])[0]!['sandbox'], sandbox({ tag: 'a' }));
});
