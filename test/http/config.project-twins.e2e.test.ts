/**
 * A configuration write in which two units name one native work project key is stored, and its answer
 * (and a dry run's) carries a `duplicate_project` warning naming both units and the key
 * (ops/work-tracker.md "Projects"); a document without twins carries none.
 */
import t from 'tap';
import { company, startConfigNode } from './fixtures/config-node.js';

type Json = Record<string, unknown>;

/** The fixture's company with Engineering and its child Platform both declaring project ENG. */
function twinned(): Record<string, unknown> {
  const doc = company();
  const [engineering] = doc['units'] as Json[];
  engineering!['integrations'] = { work: { project: 'ENG' } };
  const [platform] = engineering!['children'] as Json[];
  platform!['integrations'] = { work: { project: 'ENG', name: 'Platform work' } };
  return doc;
}

const duplicates = (body: Json): Json[] =>
  (body['warnings'] as Json[]).filter((w) => w['kind'] === 'duplicate_project');

t.test('a write with two units naming one project key is stored with a warning naming both', async (t) => {
  const node = await startConfigNode(t);
  const expected = [
    {
      kind: 'duplicate_project',
      path: 'units[0].children[0].integrations.work.project',
      unit: 'Platform',
      from: 'Platform',
      to: 'ENG',
      message: /units `Engineering` and `Platform` both declare project `ENG`; `Engineering` .* owns it/,
    },
  ];
  const dry = await node.call('PUT', '/config?dry_run=true', { body: twinned() });
  t.equal(dry.status, 200);
  const dryBody = (await dry.json()) as Json;
  t.equal(dryBody['valid'], true);
  t.match(duplicates(dryBody), expected, 'a dry run says so');

  const put = await node.call('PUT', '/config', { body: twinned(), headers: { 'x-summary': 'twins' } });
  t.equal(put.status, 201, 'the write is stored');
  const body = (await put.json()) as Json;
  t.match(duplicates(body), expected);
  t.equal(duplicates(body).length, 1);

  const clean = await node.call('PUT', '/config', { body: company(), headers: { 'x-summary': 'clean' } });
  t.equal(clean.status, 201);
  t.same(duplicates((await clean.json()) as Json), [], 'no twins, no warning');
});
