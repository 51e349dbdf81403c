/**
 * `svc serve` (the built node) with `providers.embeddings` pointing at a local embeddings server: `GET
 * /pages?q=` answers the word hits, then the pages close in meaning, with their vectors kept in the store so
 * a restarted node embeds none of them again.
 */
import t from 'tap';
import { startEmbeddingsServer } from '../fixtures/llm/embeddings-server.js';
import { applyNativeWork, nativeBackends, nativeWorkCompany } from '../harness/native-work.js';
import { runSvc } from '../harness/child.js';
import { startNode, TOKEN } from '../harness/serve-node.js';
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
  t.same(
    server.requests.map((r) => r.body.input),
    [
      [
        'invoice',
        'Card payments\n\ncustomers are charged by card',
        'Lunch menu\n\nsoup and bread on fridays',
      ],
    ],
    'the query and the pages without the word, in one call',
  );

  node.run.kill('SIGTERM');
  await node.run.exited;
  const again = runSvc(['serve', '--config', node.configFile], { SVC_TOKEN: TOKEN });
  t.teardown(() => again.kill('SIGKILL'));
  await again.waitForLog((line) => line.msg === 'node serving');
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
    server.requests.slice(1).map((r) => r.body.input),
    [['invoice']],
    'after the restart only the query is embedded: the page vectors were kept',
  );
});
