/**
 * `svc serve` (the built node) with `providers.embeddings` pointing at a local embeddings server: `GET
 * /pages?q=` answers the word hits, then the pages close in meaning, with their vectors kept in the store so
 * a restarted node embeds none of them again.
 */
import t from 'tap';
import { startEmbeddingsServer } from '../fixtures/llm/embeddings-server.js';
import { applyNativeWork, nativeBackends, nativeWorkCompany } from '../harness/native-work.js';
import { serveAgain, startNode, TOKEN } from '../harness/serve-node.js';
import { until } from '../harness/until.js';

type Json = Record<string, unknown>;
const auth = { authorization: `Bearer ${TOKEN}` };

t.test('a served node searches the knowledge base by words, then by meaning, across a restart', async (t) => {
  const server = await startEmbeddingsServer();
  t.teardown(() => server.close());
  const node = await startNode(t, nativeBackends);
  await applyNativeWork(
    t,
    [node.url],
    {
      ...nativeWorkCompany(),
      providers: {
        embeddings: {
          type: 'openai-compatible',
          model: 'fixture-embed',
          base_url: server.baseUrl,
          dimensions: 64,
        },
      },
    },
    'embeddings on',
  );
  const pages: Array<[string, string]> = [
    ['Invoice process', 'every invoice goes out monthly'],
    ['Card payments', 'customers are charged by card'],
    ['Lunch menu', 'soup and bread on fridays'],
  ];
  for (const [title, body] of pages) {
    const made = await fetch(`${node.url}/pages`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ container: 'ENG', title, body }),
    });
    t.equal(made.status, 201, await made.clone().text());
  }
  const answer = await fetch(`${node.url}/pages?q=invoice`, { headers: auth });
  t.equal(answer.status, 200);
  const rows = ((await answer.json()) as Json)['pages'] as Json[];
  t.same(
    rows.map((r) => [r['title'], r['match']]),
    [
      ['Invoice process', 'words'],
      ['Card payments', 'meaning'],
    ],
  );
  // The search embeds what the node's background fill has not reached yet (it ticks every 15 s): each
  // page is embedded once either way.
  const embedded = (from: number): string[] =>
    server.requests.slice(from).flatMap((r) => r.body.input as string[]);
  const pagesEmbedded = embedded(0).filter((text) => text !== 'invoice');
  t.ok(embedded(0).includes('invoice'), 'the query was embedded');
  t.ok(
    pagesEmbedded.includes('Card payments\n\ncustomers are charged by card'),
    'and the page found by meaning',
  );
  t.equal(new Set(pagesEmbedded).size, pagesEmbedded.length, 'no page twice');
  const beforeRestart = server.requests.length;

  node.run.kill('SIGTERM');
  await node.run.exited;
  await serveAgain(t, node);
  const after = await until(
    async () =>
      ((await (await fetch(`${node.url}/pages?q=invoice`, { headers: auth })).json()) as Json)['pages'] as
        Json[] | undefined,
    (found) => (found?.length ?? 0) === 2,
  );
  t.same(
    (after ?? []).map((r) => r['title']),
    ['Invoice process', 'Card payments'],
  );
  t.same(
    [...new Set(embedded(beforeRestart))],
    ['invoice'],
    'after the restart only the query is embedded: the page vectors were kept',
  );
});

for (const [roles, extra] of [
  ['a node running seats (its budget count)', ''],
  ['a node without seats (its spend ledger)', 'node: {roles: [ingress, data]}'],
] as const)
  t.test(`past the org token budget ${roles} calls no embeddings provider: word hits only`, async (t) => {
    const server = await startEmbeddingsServer();
    t.teardown(() => server.close());
    const node = await startNode(t, `${nativeBackends}\n${extra}`);
    const block = { type: 'openai-compatible', model: 'fixture-embed', base_url: server.baseUrl };
    // The first call's tokens (the fixture counts words) exceed the cap of 3: every later call is refused.
    await applyNativeWork(
      t,
      [node.url],
      { ...nativeWorkCompany(), token_budget: 3, providers: { embeddings: block } },
      'a small org budget',
    );
    for (const [title, body] of [
      ['Invoice process', 'every invoice goes out monthly'],
      ['Billing contacts', 'who to ask about a bill'],
    ]) {
      const made = await fetch(`${node.url}/pages`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ container: 'ENG', title, body }),
      });
      t.equal(made.status, 201);
    }
    const search = async (q: string): Promise<Json[]> =>
      ((await (await fetch(`${node.url}/pages?q=${q}`, { headers: auth })).json()) as Json)[
        'pages'
      ] as Json[];
    await search('invoice');
    await until(
      async () => server.requests.length,
      (made) => made > 0,
    );
    // Each ask a query not embedded before (its vector would need a call), none of whose words is in a page.
    // The seats' count knows the spend at once; a spend ledger a moment later.
    let asked = 0;
    const found = await until(
      async () => {
        const calls = server.requests.length;
        const rows = await search(`payments${(asked += 1)}`);
        return { rows, called: server.requests.length > calls };
      },
      (answer) => !answer.called,
    );
    t.same(found.rows, [], 'no meaning part without a call');
    const warned = await node.run.waitForLog((line) => line['kind'] === 'budget_exhausted');
    t.match(warned, { level: 40, event: 'embeddings_failed', reason: /the org token budget is exhausted/ });
    if (extra === '')
      t.equal(asked, 1, 'on a node running seats the first search after the spend is refused');
  });
