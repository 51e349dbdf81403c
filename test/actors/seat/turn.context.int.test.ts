/**
 * The lessons a turn's prompts carry (turn.context.ts) with personal memory ranked by meaning: a lesson on a
 * like task in other words is kept by its similarity, one sharing two words still by its words, and an
 * unlike one by neither. Real memory store on the memory bus, embeddings from a local OpenAI-wire server.
 */
import pino from 'pino';
import t, { type Test } from 'tap';
import { createMemoryStore, embeddingsClient, type MemoryRow } from '../../../actors/index.js';
import { turnContext } from '../../../actors/seat/turn.context.js';
import { ensureCatalogue, openMemoryBus } from '../../../bus/index.js';
import { EMBEDDINGS_MIN_SIMILARITY } from '../../../schema/index.js';
import { startEmbeddingsServer } from '../../fixtures/llm/embeddings-server.js';

const agent = '6f1c2b1e-8d3a-5c1e-9a4b-2f0e1d3c4b5a';
const now = new Date('2026-05-01T12:00:00.000Z');
const wake = {
  id: 'wake-1',
  kind: 'assignment',
  source: 'test',
  summary: 'Invoice rollout',
  trace_id: 't',
  payload: {},
};
const lesson = (id: string, content: string): MemoryRow => ({
  id,
  kind: 'long',
  content,
  metadata: { source: 'reflection' },
  ttl_until: null,
  created_at: now.toISOString(),
});

async function lessonsWith(
  t: Test,
  embeddings: boolean,
  minSimilarity = EMBEDDINGS_MIN_SIMILARITY,
): Promise<string> {
  const server = await startEmbeddingsServer();
  t.teardown(() => server.close());
  const bus = await openMemoryBus({});
  t.teardown(() => bus.close());
  const client = embeddingsClient({
    settings: {
      type: 'openai',
      model: 'm',
      baseUrl: server.baseUrl,
      apiKey: 'k',
      dimensions: 64,
      minSimilarity,
    },
    resolve: () => undefined,
  });
  const memory = createMemoryStore({
    kv: (await ensureCatalogue(bus)).memory,
    now: () => now,
    embedder: () =>
      embeddings ? { ...client, embed: async (texts) => (await client.embed(texts)).vectors } : null,
  });
  await memory.remember(agent, lesson('meaning', 'Billing release notes'));
  await memory.remember(
    agent,
    lesson('words', 'Invoice rollout checklist: ask finance first, then announce it widely to every team'),
  );
  await memory.remember(agent, lesson('unlike', 'Rotate the logs weekly'));
  const reflection = { settings: () => ({ summarize: false }), memory };
  const context = await turnContext(
    { reflection },
    { handle: 'ada', agent_id: agent },
    wake,
    now,
    pino({ level: 'silent' }),
  );
  return context ?? '';
}

t.test('with embeddings a lesson in other words is kept by its similarity', async (t) => {
  const context = await lessonsWith(t, true);
  t.match(
    context,
    '- Billing release notes',
    `shares no word with the wake, similarity >= ${EMBEDDINGS_MIN_SIMILARITY}`,
  );
  t.match(context, '- Invoice rollout checklist', 'two words of the wake still bring a lesson');
  t.notMatch(context, 'Rotate the logs', 'an unlike lesson is left out');
});

t.test('without embeddings only the lesson sharing the wake’s words is kept', async (t) => {
  const context = await lessonsWith(t, false);
  t.notMatch(context, 'Billing release notes');
  t.match(context, '- Invoice rollout checklist');
  t.notMatch(context, 'Rotate the logs');
});

t.test('a lesson less similar than min_similarity is left out, one sharing two words is kept', async (t) => {
  const context = await lessonsWith(t, true, 0.99);
  t.notMatch(context, 'Billing release notes', 'related in meaning, but under the raised floor');
  t.match(context, '- Invoice rollout checklist');
  t.notMatch(context, 'Rotate the logs');
});
