/**
 * What a /config answer quotes back of what the sender wrote (a name, an id, a query value, a media type)
 * comes cut by cutForQuote: at most 80 characters and a mark. `path` and `segments` locate a field in the
 * sender's own document and stay whole.
 */
import t from 'tap';
import { QUOTED_MAX } from '../../schema/text-grammars.js';
import { company, firstRevision, json, startConfigNode, type Json } from './fixtures/config-node.js';

/** Strings of an answer holding a run of one character longer than the cut: what the sender wrote, whole. */
function uncut(value: unknown, key = ''): string[] {
  if (key === 'path' || key === 'segments') return [];
  if (typeof value === 'string')
    return new RegExp(`(.)\\1{${QUOTED_MAX}}`, 'su').test(value) ? [`${key}: ${value.length}`] : [];
  if (Array.isArray(value)) return value.flatMap((v) => uncut(v, key));
  if (value !== null && typeof value === 'object')
    return Object.entries(value).flatMap(([k, v]) => uncut(v, k));
  return [];
}

const LONG = 2_000;

t.test('config answers quote names, ids and values cut', async (t) => {
  const node = await startConfigNode(t);
  await firstRevision(node);

  const doc = company() as Json;
  const units = doc['units'] as Json[];
  units[0]!['name'] = 'u'.repeat(100_000);
  (units[0]!['roles'] as Json[])[0]!['surprise'] = 1;
  (doc['roles'] as Json[])[0]!['unit'] = 'z'.repeat(100_000);
  for (const query of ['?dry_run=true', '']) {
    const res = await node.call('PUT', `/config${query}`, { body: doc, headers: { 'x-summary': 's' } });
    const body = await json(res);
    t.equal(res.status, 400, `PUT /config${query}: refused`);
    t.ok((body['problems'] as unknown[]).length > 0 && body['derived'] !== undefined, 'problems and derived');
    t.same(uncut(body), [], `PUT /config${query}: cut`);
  }
  delete (units[0]!['roles'] as Json[])[0]!['surprise'];
  units[0]!['name'] = 'u'.repeat(100); // the longest a write may bring (A13)
  const dry = await node.call('PUT', '/config?dry_run=true', { body: doc });
  const dryBody = await json(dry);
  t.equal(dry.status, 200, 'a valid dry run');
  t.ok((dryBody['warnings'] as unknown[]).length > 0, 'its dangling unit is warned about');
  t.same(uncut(dryBody), [], 'dry run: cut');

  const id = 'x'.repeat(LONG);
  const answers: Array<[string, Response]> = [
    ['GET entity', await node.call('GET', `/config/units/${id}`)],
    [
      'PUT entity',
      await node.call('PUT', `/config/units/${id}`, { body: { name: id }, headers: { 'x-summary': 's' } }),
    ],
    [
      'PUT entity, another identity',
      await node.call('PUT', '/config/units/Platform', { body: { name: id }, headers: { 'x-summary': 's' } }),
    ],
    [
      'create-only entity',
      await node.call('PUT', '/config/llm-providers/main', {
        body: { type: 'openai', model: id },
        headers: { 'x-summary': 's', 'if-none-match': '*' },
      }),
    ],
    ['revision', await node.call('GET', `/config/revisions/${id}`)],
    ['format', await node.call('GET', `/config?format=${id}`)],
    [
      'dry_run',
      await node.call('PUT', `/config?dry_run=${id}`, { body: company(), headers: { 'x-summary': 's' } }),
    ],
    [
      'patch media type',
      await node.call('PATCH', '/config', { body: '{}', headers: { 'content-type': `application/${id}` } }),
    ],
    [
      'patch unknown key',
      await node.call('PATCH', '/config', { body: { [id]: 1 }, headers: { 'x-summary': 's' } }),
    ],
  ];
  for (const [what, res] of answers) {
    const body = await json(res);
    t.ok(
      res.status >= 400 && res.status < 500 && typeof body['error'] === 'string',
      `${what}: ${res.status}`,
    );
    t.same(uncut(body), [], `${what}: cut`);
  }
});
