/**
 * Personal memory with `providers.embeddings` on: the store, the provider registry's client and the node's
 * binding (with spend) against a local server speaking the OpenAI embeddings wire.
 */
import t, { type Test } from 'tap';
import pino from 'pino';
import { createBudget, createMemoryStore, type MemoryRow } from '../../../actors/index.js';
import { ensureCatalogue, openMemoryBus, Streams, Subjects, type Bus } from '../../../bus/index.js';
import { agentId, Company, SpendRecord } from '../../../schema/index.js';
import { memoryEmbedder } from '../../../scripts/embeddings-wiring.js';
import {
  embeddingsBinding,
  embeddingsServer as embeddings,
  fixtureBlock,
} from '../../fixtures/llm/embeddings-binding.js';
import type { EmbeddingsServer } from '../../fixtures/llm/embeddings-server.js';

const KEY = 'sk-secret-embed-7f3a';
const now = new Date('2026-05-01T12:00:00.000Z');
const at = (minutes: number): string => new Date(now.getTime() + minutes * 60_000).toISOString();
const all = { query: null, kind: null, limit: 50, include_expired: true, now } as const;
const ids = (rows: readonly { id: string }[]): string[] => rows.map((r) => r.id);

const row = (id: string, content: string, over: Partial<MemoryRow> = {}): MemoryRow => ({
  id,
  kind: 'long',
  content,
  metadata: {},
  ttl_until: null,
  created_at: at(0),
  ...over,
});

const documentWith = (server: EmbeddingsServer | null, block: Record<string, unknown> = {}): Company =>
  Company.parse({
    name: 'Acme',
    roles: [{ name: 'Ada Lovelace', handle: 'ada', kind: 'agent' }],
    ...(server
      ? {
          providers: {
            embeddings: fixtureBlock(server, { dimensions: 64, ...block }),
          },
        }
      : {}),
  });
const agent = agentId('Acme', 'ada');

/** A node's memory store as `svc serve` binds it: the registry reads the block at its first apply. */
async function memoryOn(t: Test, document: Company, shared?: Bus) {
  const bus = shared ?? (await openMemoryBus({}));
  if (!shared) t.teardown(() => bus.close());
  const catalogue = await ensureCatalogue(bus);
  const lines: string[] = [];
  const binding = await embeddingsBinding({ bus, document, secrets: { EMBED_KEY: KEY }, lines });
  const store = createMemoryStore({
    kv: catalogue.memory,
    now: () => now,
    embedder: memoryEmbedder(binding),
    logger: binding.logger,
  });
  return { bus, store, lines, byWords: createMemoryStore({ kv: catalogue.memory, now: () => now }) };
}

t.test('recall ranks by meaning: a note sharing no word with the query comes first', async (t) => {
  const server = await embeddings(t);
  const { store, byWords } = await memoryOn(t, documentWith(server));
  await store.remember(agent, row('billing', 'Customer billing runs on the first Monday'));
  await store.remember(agent, row('deploy', 'The deploy window is Friday afternoon', { created_at: at(5) }));
  await store.remember(agent, row('lunch', 'Lunch is at noon in the big room', { created_at: at(10) }));
  const found = await store.recall(agent, { ...all, query: 'when are invoices sent' });
  t.equal(found[0]?.id, 'billing', 'the note about invoices, in other words, first');
  t.equal(found.length, 3, 'ranked by meaning, every row is a candidate');
  t.ok((found[0]?.similarity ?? 0) > (found[1]?.similarity ?? 0), 'each carries its similarity');
  t.notOk('embedding' in (found[0] ?? {}), 'a recalled row comes without its vector');
  t.same(await byWords.recall(agent, { ...all, query: 'when are invoices sent' }), [], 'by words: nothing');
});

t.test(
  'remember keeps the vector in the row and the request carries model, dimensions and key',
  async (t) => {
    const server = await embeddings(t);
    const { store, bus } = await memoryOn(t, documentWith(server));
    await store.remember(agent, row('a', 'Payments are charged in euros'));
    const [stored] = await store.rows(agent);
    t.match(stored?.embedding, { model: 'fixture-embed', dimensions: 64 });
    t.equal(Buffer.from(stored?.embedding?.vector ?? '', 'base64').length, 64 * 4, 'float32 x 64');
    t.equal(server.requests.length, 1);
    t.match(server.requests[0], {
      path: '/v1/embeddings',
      key: KEY,
      body: { model: 'fixture-embed', input: ['Payments are charged in euros'], dimensions: 64 },
    });
    const spent = await bus.lastMessage(Streams.Spend, Subjects.spend('auxiliary'));
    const record = SpendRecord.parse(JSON.parse(new TextDecoder().decode(spent?.data)));
    t.match(record, { worker: 'embeddings', handle: 'ada', model: 'fixture-embed', input_tokens: 5 });
  },
);

t.test('a row remembered before embeddings were on is embedded at recall and written back', async (t) => {
  const server = await embeddings(t);
  const off = await memoryOn(t, documentWith(null));
  await off.store.remember(agent, row('old', 'Postgres backups run nightly'));
  t.equal(server.requests.length, 0);
  // The same bucket, now with embeddings on (a restart that read the block).
  const { store } = await memoryOn(t, documentWith(server), off.bus);
  await store.remember(agent, row('new', 'Lunch is at noon'));
  const found = await store.recall(agent, { ...all, query: 'database migration' });
  t.same(ids(found), ['old', 'new'], 'the old row ranked by meaning');
  t.same(server.requests[1]?.body.input, ['database migration', 'Postgres backups run nightly'], 'one call');
  const old = (await store.rows(agent)).find((r) => r.id === 'old');
  t.match(old?.embedding, { model: 'fixture-embed', dimensions: 64 }, 'its vector was written back');
  await store.recall(agent, { ...all, query: 'database' });
  t.same(server.requests[2]?.body.input, ['database'], 'the next recall embeds the query alone');
});

t.test('recall falls back to words when the server fails; one warning without the key', async (t) => {
  const server = await embeddings(t);
  const { store, lines } = await memoryOn(t, documentWith(server));
  await store.remember(agent, row('release', 'The release train leaves on Fridays'));
  await store.remember(agent, row('lunch', 'Lunch is at noon'));
  server.fail(500);
  await store.remember(agent, row('later', 'Friday release checklist', { created_at: at(1) }));
  t.notOk((await store.rows(agent)).find((r) => r.id === 'later')?.embedding, 'kept without a vector');
  const found = await store.recall(agent, { ...all, query: 'release fridays' });
  t.same(ids(found), ['release', 'later'], 'ranked by words, rows matching nothing left out');
  await store.recall(agent, { ...all, query: 'release' });
  const warned = lines.filter((l) => l.includes('embeddings_failed'));
  t.equal(warned.length, 1, 'said once per kind of failure, not once per call');
  t.match(JSON.parse(warned[0]!), { level: 40, kind: 'server_error', status: 500 });
  t.notOk(
    lines.some((l) => l.includes(KEY)),
    'the key is in no log line',
  );
  t.notOk(
    lines.some((l) => l.includes('Incorrect API key')),
    'nor the answer body',
  );
  server.heal();
  t.equal((await store.recall(agent, { ...all, query: 'release' }))[0]?.similarity !== undefined, true);
  server.fail(401);
  await store.recall(agent, { ...all, query: 'release' });
  t.equal(
    lines.filter((l) => l.includes('embeddings_failed')).length,
    2,
    'a success lets the next failure be said',
  );
});

t.test('past its seat token budget no embeddings call is made: kept and recalled by words', async (t) => {
  const server = await embeddings(t);
  const bus = await openMemoryBus({});
  t.teardown(() => bus.close());
  const budget = createBudget({ bus, timezone: () => 'UTC', logger: pino({ level: 'silent' }) });
  t.teardown(() => budget.stop());
  const document = Company.parse({
    name: 'Acme',
    roles: [{ name: 'Ada Lovelace', handle: 'ada', kind: 'agent', token_budget: 8 }],
    providers: { embeddings: fixtureBlock(server, { dimensions: 64 }) },
  });
  const lines: string[] = [];
  const binding = await embeddingsBinding({ bus, document, secrets: { EMBED_KEY: KEY }, lines, budget });
  const store = createMemoryStore({
    kv: (await ensureCatalogue(bus)).memory,
    now: () => now,
    embedder: memoryEmbedder(binding),
    logger: binding.logger,
  });
  // Five tokens each (the fixture counts words): the second call reaches the cap of 8.
  await store.remember(agent, row('a', 'The release train leaves Fridays'));
  await store.remember(agent, row('b', 'Lunch is at noon daily'));
  t.equal(server.requests.length, 2, 'under the cap the calls are made');
  await store.remember(agent, row('c', 'Friday release checklist', { created_at: at(1) }));
  t.equal(server.requests.length, 2, 'past it no call is made');
  t.notOk(
    (await store.rows(agent)).find((r) => r.id === 'c')?.embedding,
    'the note is kept without a vector',
  );
  const found = await store.recall(agent, { ...all, query: 'release fridays' });
  t.equal(server.requests.length, 2, 'nor for a recall');
  t.same(ids(found), ['a', 'c'], 'which ranks by words');
  const warned = lines.filter((l) => l.includes('embeddings_failed'));
  t.equal(warned.length, 1, 'said once');
  t.match(JSON.parse(warned[0]!), {
    level: 40,
    kind: 'budget_exhausted',
    reason: /^not called: the seat token budget is exhausted \(10 of 8 tokens from /,
  });
});

t.test('a vector of another width than dimensions is refused: recall ranks by words', async (t) => {
  const server = await embeddings(t);
  const { store, lines } = await memoryOn(t, documentWith(server));
  server.answerWidth(32);
  await store.remember(agent, row('a', 'Deploy on Fridays'));
  t.notOk((await store.rows(agent))[0]?.embedding, 'no vector of the wrong width is kept');
  const warned = lines.find((l) => l.includes('embeddings_failed')) ?? '';
  t.match(JSON.parse(warned), { kind: 'malformed_stream', reason: /32 numbers where dimensions is 64/ });
});

t.test('without the block recall is by words and nothing is called', async (t) => {
  const server = await embeddings(t);
  const { store } = await memoryOn(t, documentWith(null));
  await store.remember(agent, row('a', 'Deploy on Fridays'));
  t.same(ids(await store.recall(agent, { ...all, query: 'deploy' })), ['a']);
  t.equal((await store.recall(agent, { ...all, query: 'deploy' }))[0]?.similarity, undefined);
  t.equal(server.requests.length, 0);
});
