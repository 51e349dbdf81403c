/**
 * The background fill of page vectors (scripts/page-vectors-fill.ts): the node holding the `page_vectors` duty
 * embeds the pages a batch a tick, so a search finds their vectors made and embeds its query alone; a second
 * node does not embed them again while the duty is held; a failing provider leaves the pages for later.
 */
import pino from 'pino';
import t, { type Test } from 'tap';
import { ensureCatalogue } from '../../bus/index.js';
import { PAGE_VECTORS_DUTY, startPageVectorsFill } from '../../scripts/page-vectors-fill.js';
import type { EmbeddingsServer } from '../fixtures/llm/embeddings-server.js';
import { corpus, create, inputs, meaningOn, search } from './fixtures/pages-meaning.js';
import { embeddingsServer as embeddings } from '../fixtures/llm/embeddings-binding.js';
import { startPagesNode, type PagesNode } from './fixtures/pages-node.js';

async function fillOf(t: Test, n: PagesNode, server: EmbeddingsServer, nodeId: string, lines: string[] = []) {
  const meaning = await meaningOn(server)(n.bus);
  const catalogue = await ensureCatalogue(n.bus);
  const fill = startPageVectorsFill({
    coord: catalogue.coord,
    nodeId,
    vectors: meaning.vectors,
    embedder: meaning.embedder,
    pages: () => n.knowledge.projection.state(),
    logger: pino({ level: 'debug' }, { write: (line: string) => lines.push(line) }),
    everyMs: 0,
    batch: 2,
  });
  t.teardown(() => fill.stop());
  return fill;
}

t.test('the fill embeds the pages ahead of any search, a batch a tick', async (t) => {
  const server = await embeddings(t);
  const n = await startPagesNode(t, { meaning: meaningOn(server) });
  await corpus(n);
  const fill = await fillOf(t, n, server, 'node-a');
  t.equal(await fill.run(), 2, 'a tick embeds one batch');
  t.equal(await fill.run(), 2);
  t.equal(await fill.run(), 2, 'six pages in three ticks');
  t.equal(await fill.run(), 0, 'then nothing is left');
  t.ok(
    inputs(server).every((input) => input.length <= 2 && !input.includes('invoice')),
    'the fill embeds pages only, a batch at a time',
  );
  const before = server.requests.length;
  const found = await search(n, '/pages?q=invoice');
  t.same(found.matches, ['words', 'words', 'words', 'meaning', 'meaning'], 'the search finds by meaning');
  t.same(inputs(server).slice(before), [['invoice']], 'embedding its query alone: the pages were filled');

  await create(n, 'Refunds', 'how a payment is returned');
  t.equal(await fill.run(), 1, 'a page written since is embedded at the next tick');
  t.same(inputs(server).at(-1), ['Refunds\n\nhow a payment is returned']);
});

t.test('while one node holds the duty another embeds nothing, and takes over once it stops', async (t) => {
  const server = await embeddings(t);
  const n = await startPagesNode(t, { meaning: meaningOn(server) });
  await corpus(n);
  const a = await fillOf(t, n, server, 'node-a');
  const b = await fillOf(t, n, server, 'node-b');
  t.equal(await a.run(), 2, 'the first to tick takes the duty and fills');
  t.equal(await b.run(), 0, 'the other does not: the duty is held');
  t.equal(server.requests.length, 1);
  await a.stop();
  t.equal(await b.run(), 2, 'a stopped holder hands the duty over at once');
  const duty = await (await ensureCatalogue(n.bus)).coord.get(`duty.${PAGE_VECTORS_DUTY}`);
  t.match(
    JSON.parse(new TextDecoder().decode(duty!.value)),
    { node: 'node-b' },
    'held by the other node now',
  );
});

t.test('a failing provider leaves the pages for a later tick, logged once without the body', async (t) => {
  const server = await embeddings(t);
  const n = await startPagesNode(t, { meaning: meaningOn(server) });
  await corpus(n);
  const lines: string[] = [];
  const fill = await fillOf(t, n, server, 'node-a', lines);
  server.fail(500);
  t.equal(await fill.run(), 0);
  t.equal(await fill.run(), 0);
  const warned = lines.filter((l) => l.includes('embeddings_failed'));
  t.equal(warned.length, 1, 'one line per kind of failure');
  t.notMatch(lines.join('\n'), /Incorrect API key/);
  server.heal();
  t.equal(await fill.run(), 2, 'the pages are filled once the provider answers');
});

t.test(
  'every node reads the vectors the bucket holds once, at its first tick, holding the duty or not',
  async (t) => {
    const server = await embeddings(t);
    const n = await startPagesNode(t, { meaning: meaningOn(server) });
    await corpus(n);
    const a = await fillOf(t, n, server, 'node-a');
    for (let made = await a.run(); made > 0; made = await a.run());
    const lines: string[] = [];
    // A node started after the fill (its cache empty, as after a restart), not holding the duty.
    const b = await fillOf(t, n, server, 'node-b', lines);
    const asked = server.requests.length;
    t.equal(await b.run(), 0, 'it embeds nothing: the duty is held');
    const read = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l['event'] === 'page_vectors_read'); // prettier-ignore
    t.match(
      read,
      [{ pages: 6, held: 6, msg: 'page vectors read' }],
      'the six vectors the holder made are read ahead',
    );
    t.equal(server.requests.length, asked, 'reading them calls no provider');
    await b.run();
    t.equal(lines.filter((l) => l.includes('page_vectors_read')).length, 1, 'once per node');
  },
);
