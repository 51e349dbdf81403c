/**
 * Fields of the company document (spec "Resources and fields") through the config routes on a real
 * listener: a field the spec lists is either applied by the node or answered with a warning that says
 * it is not, never accepted in silence; a value the node could not honour is refused at its path.
 */
import t from 'tap';
import { company, startConfigNode } from './fixtures/config-node.js';

type Json = Record<string, unknown>;
const json = async (res: Response): Promise<Json> => (await res.json()) as Json;

const notApplied = (body: Json): string[] =>
  ((body['warnings'] as Json[] | undefined) ?? [])
    .filter((w) => w['kind'] === 'not_applied')
    .map((w) => w['path'] as string);

t.test(
  'embeddings and the personal memory refresh cap are answered not_applied on a dry run and a write',
  async (t) => {
    const node = await startConfigNode(t);
    const doc = {
      ...company(),
      providers: {
        ...(company()['providers'] as Json),
        embeddings: { type: 'openai', model: 'text-embedding-3-small', dimensions: 1536 },
      },
      learning: { personal_memory: { max_refreshes_per_turn: 2 } },
    };
    const dry = await node.call('PUT', '/config?dry_run=true', { body: doc });
    t.equal(dry.status, 200);
    const expected = ['learning.personal_memory.max_refreshes_per_turn', 'providers.embeddings'];
    t.same(notApplied(await json(dry)).sort(), expected);
    const written = await node.call('PUT', '/config', { body: doc, headers: { 'x-summary': 'fields' } });
    t.equal(written.status, 201);
    t.same(notApplied(await json(written)).sort(), expected);
    const plain = await node.call('PUT', '/config?dry_run=true', { body: company() });
    t.same(notApplied(await json(plain)), [], 'a document without them warns nothing');
  },
);
