/** The embeddings client and `providers.embeddings` read at start, against a local OpenAI embeddings server. */
import t, { type Test } from 'tap';
import { embeddingsClient, LlmMalformedStreamError, LlmServerError } from '../../../actors/index.js';
import { Company, readEmbeddings, type EmbeddingsSettings } from '../../../schema/index.js';
import { startEmbeddingsServer, type EmbeddingsServer } from '../../fixtures/llm/embeddings-server.js';
import { harness, secrets } from './registry-harness.js';

async function embeddings(t: Test): Promise<EmbeddingsServer> {
  const server = await startEmbeddingsServer();
  t.teardown(() => server.close());
  return server;
}

const settings = (server: EmbeddingsServer, over: Partial<EmbeddingsSettings> = {}): EmbeddingsSettings => ({
  type: 'openai',
  model: 'fixture-embed',
  baseUrl: server.baseUrl,
  apiKey: '${KEY_A}',
  dimensions: 16,
  minSimilarity: 0.3,
  ...over,
});
const resolve = (name: string): string | undefined => secrets[name];

t.test('vectors answer the inputs in order, in batches of at most 256', async (t) => {
  const server = await embeddings(t);
  const client = embeddingsClient({ settings: settings(server), resolve });
  const inputs = Array.from({ length: 300 }, (_, i) => `note number ${i}`);
  const answer = await client.embed(inputs);
  t.equal(answer.vectors.length, 300);
  t.same(
    server.requests.map((r) => (r.body.input as string[]).length),
    [256, 44],
  );
  const alone = await client.embed(['note number 299']);
  t.same([...answer.vectors[299]!], [...alone.vectors[0]!], 'each vector placed by its index');
  t.equal(answer.inputTokens, 900, 'usage summed over the requests');
});

t.test(
  'the request carries model, dimensions and the key; without api_key openai reads OPENAI_API_KEY',
  async (t) => {
    const server = await embeddings(t);
    await embeddingsClient({ settings: settings(server), resolve }).embed(['a']);
    t.match(server.requests[0], { key: secrets['KEY_A'], body: { model: 'fixture-embed', dimensions: 16 } });
    await embeddingsClient({ settings: settings(server, { apiKey: null, dimensions: null }), resolve }).embed(
      ['a'],
    );
    t.equal(server.requests[1]?.key, secrets['OPENAI_API_KEY']);
    t.notOk('dimensions' in server.requests[1]!.body, 'no dimensions asked when none is set');
    const keyless = settings(server, { type: 'openai-compatible', apiKey: null });
    await embeddingsClient({ settings: keyless, resolve }).embed(['a']);
    t.equal(
      server.requests[2]?.key,
      null,
      'openai-compatible without a key sends none (no OpenAI key leaks)',
    );
  },
);

t.test('a key that resolves to nothing sends nothing and names the variable only', async (t) => {
  const server = await embeddings(t);
  const client = embeddingsClient({ settings: settings(server, { apiKey: '${MISSING_KEY}' }), resolve });
  await t.rejects(client.embed(['a']), { kind: 'auth_refused', message: /MISSING_KEY resolves to nothing/ });
  t.equal(server.requests.length, 0);
});

t.test('a base_url naming no host once resolved sends nothing and never quotes the value', async (t) => {
  const server = await embeddings(t);
  const noHost = embeddingsClient({
    settings: settings(server, { baseUrl: 'http:///hidden-path/v1' }),
    resolve,
  });
  const error = await noHost.embed(['a']).catch((e: unknown) => e);
  t.match(error, {
    kind: 'invalid_base_url',
    message:
      /embeddings provider "providers.embeddings" \(openai\): base_url is not an http\(s\) URL naming a host/,
  });
  t.notMatch((error as Error).message, /hidden-path/);
  const unset = settings(server, { baseUrl: 'http://${MISSING_HOST}/v1' });
  await t.rejects(embeddingsClient({ settings: unset, resolve }).embed(['a']), {
    kind: 'invalid_base_url',
    message: /\$\{MISSING_HOST\} resolves to nothing, nothing sent/,
  });
  t.equal(server.requests.length, 0, 'no request reached any server');
});

t.test('a refused call names the status, never the key or the body', async (t) => {
  const server = await embeddings(t);
  server.fail(500);
  const client = embeddingsClient({ settings: settings(server), resolve });
  const error = await client.embed(['a']).catch((e: unknown) => e);
  t.type(error, LlmServerError);
  const message = (error as Error).message;
  t.match(message, /embeddings provider "providers.embeddings" \(openai\): server error \(HTTP 500\)/);
  t.notMatch(message, secrets['KEY_A']!);
  t.notMatch(message, /Incorrect API key/);
});

t.test('a vector of another width than dimensions is refused', async (t) => {
  const server = await embeddings(t);
  server.answerWidth(8);
  const error = await embeddingsClient({ settings: settings(server), resolve })
    .embed(['a'])
    .catch((e: unknown) => e);
  t.type(error, LlmMalformedStreamError);
  t.match((error as Error).message, /a vector of 8 numbers where dimensions is 16/);
});

t.test('a vector wider than any kept is refused, whatever the server answers', async (t) => {
  const server = await embeddings(t);
  server.answerWidth(8193);
  const error = await embeddingsClient({ settings: settings(server, { dimensions: null }), resolve })
    .embed(['a'])
    .catch((e: unknown) => e);
  t.type(error, LlmMalformedStreamError);
  t.match((error as Error).message, /vectors of 8193 numbers, above the 8192 this release keeps/);
});

t.test('the registry reads the block at its first apply and keeps it until a restart', async (t) => {
  const server = await embeddings(t);
  const block = { type: 'openai', model: 'fixture-embed', base_url: server.baseUrl, dimensions: 16 };
  const first = Company.parse({ name: 'Acme', providers: { embeddings: block } });
  const { registry, lines } = harness(null);
  t.equal(registry.embeddings(), null, 'nothing before a document');
  await registry.apply(first);
  const client = registry.embeddings();
  t.match(
    client,
    { model: 'fixture-embed', dimensions: 16, minSimilarity: 0.3 },
    'related from 0.3 unless set',
  );
  const changed = Company.parse({ name: 'Acme', providers: { embeddings: { ...block, model: 'other' } } });
  await registry.apply(changed);
  registry.settled(changed);
  t.equal(registry.embeddings(), client, 'a change waits for the restart');
  t.match(JSON.parse(lines.find((l) => l.includes('restart_required')) ?? '{}'), {
    level: 40,
    msg: /read at start only: personal memory keeps the embeddings it started with/,
  });
  const restarted = harness(changed).registry;
  t.match(restarted.embeddings(), { model: 'other' }, 'a restart reads the new block');
  const raised = Company.parse({
    name: 'Acme',
    providers: { embeddings: { ...block, min_similarity: 0.55 } },
  });
  t.match(harness(raised).registry.embeddings(), { minSimilarity: 0.55 }, 'min_similarity is read');
  const unusable = harness(
    Company.parse({ name: 'Acme', providers: { embeddings: { type: 'cohere', model: 'x' } } }),
  );
  t.equal(unusable.registry.embeddings(), null, 'a type not built computes nothing');
  t.equal(readEmbeddings({ type: 'cohere', model: 'x' }).kind, 'unusable');
});
