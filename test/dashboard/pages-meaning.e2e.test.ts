/**
 * The pages room's search with `providers.embeddings` on, in a real browser against a real `svc serve`: the
 * word hit first, then a page close in meaning, marked as such.
 */
import t from 'tap';
import { startEmbeddingsServer } from '../fixtures/llm/embeddings-server.js';
import { needsChromium, openPage, startBrowser, visitRoom } from '../harness/browser.js';
import { exampleCompany, startCompanyNode, TOKEN } from './fixtures/company-node.js';

t.test('a search lists the word hits, then pages found by meaning marked so', needsChromium, async (t) => {
  const server = await startEmbeddingsServer();
  t.teardown(() => server.close());
  const text = exampleCompany();
  if (!text.includes('\nproviders:\n'))
    throw new Error('the example company no longer has a providers block');
  const company = `${text.replace(
    '\nproviders:\n',
    `\nproviders:\n  embeddings: {type: openai-compatible, model: fixture-embed, base_url: "${server.baseUrl}", dimensions: 64}\n`,
  )}\nknowledge: {wiki_spaces: [HANDBOOK]}\n`;
  const node = await startCompanyNode(t, { extra: 'knowledge: {backend: native}', company });
  for (const [title, body] of [
    ['Invoice process', 'every invoice goes out monthly'],
    ['Card payments', 'customers are charged by card'],
  ]) {
    const made = await fetch(`${node.url}/pages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ container: 'HANDBOOK', title, body }),
    });
    t.equal(made.status, 201, await made.clone().text());
  }
  const browser = await startBrowser(t);
  const w = await openPage(browser);
  await visitRoom(w, `${node.url}/dashboard#/pages`, 'Pages');
  await w.page.getByLabel('Search pages').fill('invoice');
  await w.page.getByRole('button', { name: 'Search' }).click();
  const hits = w.page.locator('section[aria-label="Search: invoice"]');
  await hits.getByRole('link', { name: 'Card payments' }).waitFor();
  const rows = await hits.locator('tbody tr').allTextContents();
  t.match(rows, [/^Invoice process(?!.*by meaning)/, /^Card payments by meaning/]);
});
