/**
 * `GET /pages?q=` and `pages_search` with `providers.embeddings` on: word hits first, as without, then pages
 * close in meaning, against a local server speaking the OpenAI embeddings wire (the registry's own client
 * and the node's binding, page vectors in the bus bucket).
 */
import t from 'tap';
import pino from 'pino';
import { createBudget, recordAuxiliarySpend, serviceBuiltins, type Budget } from '../../actors/index.js';
import { openBus, Streams, Subjects, type Bus } from '../../bus/index.js';
import { SpendRecord } from '../../schema/index.js';
import { startNatsServer } from '../harness/nats-server.js';
import { until } from '../harness/until.js';
import { embeddingsServer as embeddings } from '../fixtures/llm/embeddings-binding.js';
import { corpus, create, inputs, KEY, meaningOn, search, type Json } from './fixtures/pages-meaning.js';
import { startPagesNode } from './fixtures/pages-node.js';

t.test('a page sharing no word with the query but close in meaning comes after the word hits', async (t) => {
  const server = await embeddings(t);
  const n = await startPagesNode(t, { meaning: meaningOn(server) });
  await corpus(n);
  const found = await search(n, '/pages?q=invoice');
  t.equal(found.status, 200);
  t.same(found.titles.slice(0, 3).sort(), ['Invoice process', 'Invoice template', 'Late invoice']);
  t.same(found.matches, ['words', 'words', 'words', 'meaning', 'meaning']);
  t.same(found.titles.slice(3).sort(), ['Billing contacts', 'Card payments']);
  t.notOk(found.titles.includes('Lunch menu'), 'a page unrelated in meaning is no hit');
  const meaning = found.rows[3]!;
  t.ok(
    (meaning['score'] as number) > 0 && (meaning['score'] as number) <= 1,
    'a meaning hit scores its similarity',
  );
  t.match(
    meaning['snippet'],
    /^(customers are charged by card|who to ask about a bill)$/,
    'its snippet is its body start',
  );
});

t.test('a page less similar than min_similarity (default 0.3) is no meaning hit', async (t) => {
  const server = await embeddings(t);
  const n = await startPagesNode(t, { meaning: meaningOn(server) });
  await corpus(n);
  // One billing word among fourteen others: related, but faintly (a cosine near 0.27).
  await create(
    n,
    'Office guide',
    'keys desks chairs plants kettle coffee printer paper stamps and the odd bill',
  );
  const found = await search(n, '/pages?q=invoice');
  t.same(found.titles.slice(3).sort(), ['Billing contacts', 'Card payments'], 'the faint page is left out');
  t.ok(
    found.rows.slice(3).every((row) => (row['score'] as number) >= 0.3),
    'every meaning hit is at least as similar as the floor',
  );

  const strict = await startPagesNode(t, { meaning: meaningOn(server, { block: { min_similarity: 0.99 } }) });
  await corpus(strict);
  const wordsOnly = await search(strict, '/pages?q=invoice');
  t.same(wordsOnly.matches, ['words', 'words', 'words'], 'a raised floor leaves the word hits alone');
});

t.test('word hits are unchanged and first: the same rows a node without embeddings answers', async (t) => {
  const server = await embeddings(t);
  const on = await startPagesNode(t, { meaning: meaningOn(server) });
  const off = await startPagesNode(t);
  await corpus(on);
  await corpus(off);
  const withMeaning = await search(on, '/pages?q=invoice%20monthly');
  const byWords = await search(off, '/pages?q=invoice%20monthly');
  t.same(byWords.titles, ['Invoice process']);
  const words = withMeaning.rows.filter((r) => r['match'] === 'words');
  const strip = (rows: Json[]) => rows.map(({ id: _id, updated_at: _u, ...rest }) => rest);
  t.same(strip(words), strip(byWords.rows), 'word hits as without embeddings, score and snippet included');
  t.same(withMeaning.rows.slice(0, words.length), words, 'and before every meaning hit');
  t.ok(withMeaning.rows.length > words.length, 'meaning hits follow');
});

t.test('paging crosses from the word hits to the meaning hits without repeats or gaps', async (t) => {
  const server = await embeddings(t);
  const n = await startPagesNode(t, { meaning: meaningOn(server) });
  await corpus(n);
  const all = await search(n, '/pages?q=invoice&limit=50');
  t.equal(all.next, null);
  for (const limit of [1, 2, 3]) {
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 10; i++) {
      const part = await search(n, `/pages?q=invoice&limit=${limit}`, cursor);
      t.equal(part.status, 200);
      seen.push(...part.titles);
      cursor = part.next;
      if (cursor === null) break;
    }
    t.same(seen, all.titles, `limit ${limit}: every row once, in order`);
  }
  t.equal(server.requests.length, 1, 'one call for the whole paging: the query and pages embedded once');
  const first = await search(n, '/pages?q=invoice&limit=4');
  const other = await n.call('GET', `/pages?q=billing&limit=4&cursor=${encodeURIComponent(first.next!)}`);
  t.equal(other.status, 400, 'a meaning cursor is bound to its words too');
});

t.test('an edited page gets a new vector; a deleted page never shows', async (t) => {
  const server = await embeddings(t);
  const n = await startPagesNode(t, { meaning: meaningOn(server) });
  const ids = await corpus(n);
  await search(n, '/pages?q=invoice');
  const before = server.requests.length;
  const edited = await n.call('PATCH', `/pages/${ids['Card payments']!}`, {
    body: { title: 'Office plants', body: 'the office plants need water' },
  });
  t.equal(edited.status, 200);
  await n.call('DELETE', `/pages/${ids['Billing contacts']!}`);
  const after = await search(n, '/pages?q=invoice');
  t.same(after.matches, ['words', 'words', 'words'], 'neither the edited nor the deleted page matches now');
  t.same(
    inputs(server).slice(before),
    [['Office plants\n\nthe office plants need water']],
    "only the edited page was embedded again, at its new revision (the query's vector was kept)",
  );
  await n.call('PATCH', `/pages/${ids['Lunch menu']!}`, { body: { body: 'pay the bill by friday' } });
  const again = await search(n, '/pages?q=invoice');
  t.same(again.titles.slice(3), ['Lunch menu'], 'an edit can bring a page in too');
});

t.test('vectors in the bucket serve a second node and a restart: no page is embedded twice', async (t) => {
  const server = await embeddings(t);
  const n = await startPagesNode(t, { meaning: meaningOn(server) });
  await corpus(n);
  const first = await search(n, '/pages?q=invoice');
  t.equal(inputs(server)[0]!.length, 4, 'the query and the three pages without the word');
  const peer = await startPagesNode(t, { bus: n.bus, meaning: meaningOn(server) });
  const second = await search(peer, '/pages?q=invoice');
  t.same(second.titles, first.titles);
  t.same(inputs(server).slice(1), [['invoice']], 'the peer embedded the query alone');
  // A node started afresh on the same store: an empty cache, as after a restart.
  const restarted = await startPagesNode(t, { bus: n.bus, meaning: meaningOn(server) });
  t.same((await search(restarted, '/pages?q=invoice')).titles, first.titles);
  t.same(inputs(server).slice(2), [['invoice']], 'after a restart too');
});

t.test('on JetStream two nodes share the vectors: the second embeds only its queries', async (t) => {
  const server = await embeddings(t);
  const nats = await startNatsServer({ t });
  const connect = async (): Promise<Bus> => {
    const bus = await openBus({ type: 'jetstream', url: nats.url });
    t.teardown(() => bus.close());
    return bus;
  };
  const a = await startPagesNode(t, { bus: await connect(), meaning: meaningOn(server) });
  await corpus(a);
  const first = await search(a, '/pages?q=invoice');
  t.same(first.titles.slice(3).sort(), ['Billing contacts', 'Card payments']);
  const b = await startPagesNode(t, { bus: await connect(), meaning: meaningOn(server) });
  // Node b folds the pages from the stream on its own time.
  const second = await until(
    () => search(b, '/pages?q=invoice'),
    (found) => found.titles.length === first.titles.length,
  );
  t.same(second.titles, first.titles);
  t.same(
    inputs(server)
      .slice(1)
      .filter((input) => input.length !== 1 || input[0] !== 'invoice'),
    [],
    'every later call embedded the query alone',
  );
});

t.test('pages past the per-search cap wait for the next search', async (t) => {
  const server = await embeddings(t);
  const n = await startPagesNode(t, { meaning: meaningOn(server, { cap: 2 }) });
  await corpus(n);
  const first = await search(n, '/pages?q=invoice');
  t.equal(inputs(server)[0]!.length, 3, 'the query and two pages');
  t.ok(first.matches.filter((m) => m === 'meaning').length <= 2, 'a page not embedded yet is left out');
  const second = await search(n, '/pages?q=invoice');
  t.equal(inputs(server)[1]!.length, 1, 'the next search embeds the rest');
  t.notOk(inputs(server)[1]!.includes('invoice'), 'but not its query again: its vector was kept');
  t.same(second.titles.slice(3).sort(), ['Billing contacts', 'Card payments']);
});

t.test('a failing provider gives the word hits alone, logged once without key or body', async (t) => {
  const server = await embeddings(t);
  const lines: string[] = [];
  const n = await startPagesNode(t, { meaning: meaningOn(server, { lines }) });
  await corpus(n);
  server.fail(401);
  const found = await search(n, '/pages?q=invoice');
  t.same(found.matches, ['words', 'words', 'words']);
  t.equal(found.next, null);
  await search(n, '/pages?q=invoice');
  const warned = lines.filter((l) => l.includes('embeddings_failed'));
  t.equal(warned.length, 1, 'one line per kind of failure');
  t.match(warned[0], /knowledge base search finds by words only/);
  t.notMatch(lines.join('\n'), KEY);
  t.notMatch(lines.join('\n'), /Incorrect API key/);
  server.heal();
  t.same((await search(n, '/pages?q=invoice')).matches.length, 5, 'meaning hits come back with the provider');
});

t.test('past the org token budget a search calls no provider and answers its word hits', async (t) => {
  const server = await embeddings(t);
  const lines: string[] = [];
  const budgets: Budget[] = [];
  const budget = (bus: Bus): Budget => {
    budgets.push(createBudget({ bus, timezone: () => 'UTC', logger: pino({ level: 'silent' }) }));
    return budgets.at(-1)!;
  };
  t.teardown(() => Promise.all(budgets.map((b) => b.stop())));
  const n = await startPagesNode(t, { meaning: meaningOn(server, { lines, budget, company: { token_budget: 40 } }) }); // prettier-ignore
  await corpus(n);
  t.same((await search(n, '/pages?q=invoice')).matches.length, 5, 'under the cap: by meaning too');
  // A seat's spend, counted by this node's budget as the seats runtime counts what it stores.
  await recordAuxiliarySpend(
    { bus: n.bus, node: 'node-1', budget: budgets[0]! },
    { worker: 'reflection', provider: 'p', model: 'm', input_tokens: 40, output_tokens: 0 },
  );
  const calls = server.requests.length;
  // A query not embedded before: its vector would need a call.
  const found = await search(n, '/pages?q=bill');
  t.same(found.matches, ['words'], 'the word hit alone');
  t.equal(server.requests.length, calls, 'no embeddings call once the org has spent its budget');
  const warned = lines.filter((l) => l.includes('budget_exhausted'));
  t.equal(warned.length, 1);
  t.match(JSON.parse(warned[0]!), { level: 40, reason: /the org token budget is exhausted/ });
});

t.test('without providers.embeddings no embeddings request is made', async (t) => {
  const server = await embeddings(t);
  const n = await startPagesNode(t, { meaning: meaningOn(null) });
  await corpus(n);
  const found = await search(n, '/pages?q=invoice');
  t.same(found.matches, ['words', 'words', 'words']);
  t.equal(server.requests.length, 0);
});

t.test("a seat's pages_search ranks by meaning and is spent on that seat", async (t) => {
  const server = await embeddings(t);
  const n = await startPagesNode(t, { meaning: meaningOn(server) });
  await corpus(n);
  const tool = serviceBuiltins(n.knowledge.tools).find((x) => x.entry.name === 'pages_search')!;
  const ctx = { seat: 'builder', agent_id: '00000000-0000-5000-8000-000000000001', call_id: 'turn-1:0:0:0' };
  const answer = await tool.call(ctx, { q: 'invoice' });
  t.equal(answer.is_error, false);
  t.match(answer.content[0]!.text, /"match": "meaning"/);
  const spent = await n.bus.lastMessage(Streams.Spend, Subjects.spend('auxiliary'));
  const record = SpendRecord.parse(JSON.parse(new TextDecoder().decode(spent?.data)));
  t.match(record, { worker: 'embeddings', handle: 'builder', model: 'fixture-embed' });
  await n.call('PATCH', '/pages/HANDBOOK/Lunch%20menu', { body: { body: 'pay the bill' } });
  await search(n, '/pages?q=invoice');
  const requested = await n.bus.lastMessage(Streams.Spend, Subjects.spend('auxiliary'));
  const unseated = SpendRecord.parse(JSON.parse(new TextDecoder().decode(requested?.data)));
  t.match(unseated, { worker: 'embeddings', handle: '' }, 'a request search is spent on no seat');
});
