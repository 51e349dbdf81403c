/**
 * The registry's state: one entry (wire client + credential pool) per configured LLM provider, built from a
 * company document. Entries whose spec did not change are kept as they are (their pools and cooldowns); a
 * changed entry carries its pool's cooldowns over. The embeddings client is read from the first document only.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Logger } from 'pino';
import { type Company, type LlmProvider, readEmbeddings, type Resolver } from '../../../schema/index.js';
import { anthropicClient } from './anthropic.client.js';
import type { ClientConfig, ProviderClient } from './client.js';
import { embeddingsClient, type EmbeddingsClient } from './embeddings.client.js';
import { CredentialPool, type PoolTiming } from './credential-pool.js';
import type { HttpPost } from './http-post.js';
import { openaiClient } from './openai.client.js';
import { readProviderConfig, type ProviderConfig } from './provider-config.js';

/** Without `timeout_seconds`, a call (streaming included) may take this long. */
const defaultTimeoutSeconds = 300;

export interface Entry {
  readonly name: string;
  readonly spec: LlmProvider;
  readonly client: ProviderClient;
  readonly pool: CredentialPool;
}

export type EmbeddingsBlock = NonNullable<Company['providers']>['embeddings'];

export interface State {
  readonly config: ProviderConfig;
  readonly entries: ReadonlyMap<string, Entry>;
  /**
   * The embeddings client read from the first document (null: no usable block); undefined until a document
   * came. Read at start only (spec apply order): later applies carry it over unchanged.
   */
  readonly embeddings: EmbeddingsClient | null | undefined;
  /** The `providers.embeddings` block that client was read from (absent: none); undefined with it. */
  readonly running: { readonly block: EmbeddingsBlock } | undefined;
}

/** What building entries needs from the registry's options. */
export interface EntryDeps {
  readonly resolve: Resolver;
  readonly logger?: Logger | undefined;
  readonly now?: (() => number) | undefined;
  readonly post?: HttpPost | undefined;
  readonly timing?: Partial<PoolTiming> | undefined;
}

/** The state for `document`, keeping what it can of `previous` (null: the first build). */
export function buildState(document: Company | null, previous: State | null, deps: EntryDeps): State {
  const config = readProviderConfig(document);
  const entries = new Map<string, Entry>();
  for (const [name, spec] of config.llm) {
    const old = previous?.entries.get(name);
    if (old && isDeepStrictEqual(old.spec, spec)) {
      entries.set(name, old);
      continue;
    }
    const entry = buildEntry(name, spec, deps);
    if (old) entry.pool.carryFrom(old.pool);
    entries.set(name, entry);
  }
  if (previous?.running !== undefined)
    return { config, entries, embeddings: previous.embeddings, running: previous.running };
  if (document === null) return { config, entries, embeddings: undefined, running: undefined };
  const running = { block: document.providers?.embeddings };
  return { config, entries, embeddings: embeddingsOf(document, deps), running };
}

function embeddingsOf(document: Company, deps: EntryDeps): EmbeddingsClient | null {
  const read = readEmbeddings(document.providers?.embeddings);
  if (read.kind !== 'usable') return null;
  // Names only: the key stays inside the client and is resolved per call.
  deps.logger?.info(
    { type: read.settings.type, model: read.settings.model, dimensions: read.settings.dimensions },
    'embeddings read at start: personal memory ranks by meaning',
  );
  return embeddingsClient({
    settings: read.settings,
    resolve: deps.resolve,
    ...(deps.post ? { post: deps.post } : {}),
    ...(deps.now ? { now: deps.now } : {}),
  });
}

function buildEntry(name: string, spec: LlmProvider, deps: EntryDeps): Entry {
  const config: ClientConfig = {
    name,
    type: spec.type,
    model: spec.model,
    // base_url is resolved per call (call-chain.ts): the written value may hold `${VAR}` references.
    timeoutMs: (spec.timeout_seconds ?? defaultTimeoutSeconds) * 1000,
    ...(deps.post ? { post: deps.post } : {}),
    ...(deps.now ? { now: deps.now } : {}),
  };
  const client = spec.type === 'anthropic' ? anthropicClient(config) : openaiClient(config);
  const pool = new CredentialPool({
    provider: name,
    type: spec.type,
    model: spec.model,
    apiKeys: spec.api_keys,
    resolve: deps.resolve,
    ...(deps.now ? { now: deps.now } : {}),
    ...(deps.timing ? { timing: deps.timing } : {}),
  });
  return { name, spec, client, pool };
}
