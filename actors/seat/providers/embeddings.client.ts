/**
 * The embeddings wire (`POST {base}/embeddings`, spoken by OpenAI and compatible servers) for
 * `providers.embeddings` (ops/providers.md "Embeddings"). Inputs go in batches of at most 256; every answer
 * is checked (one vector per input, by `index`; every vector of one width, `dimensions` when set), and a
 * failure is a typed `LlmError` that names the kind and status, never the body or the key.
 */
import { z } from 'zod';
import {
  EMBEDDINGS_MAX_WIDTH,
  substituteRefs,
  type EmbeddingsSettings,
  type Resolver,
} from '../../../schema/index.js';
import { baseUrlDetail, resolveBaseUrl } from './base-url.js';
import { envFallbacks } from './credential-pool.js';
import { joinUrl, postJson, withDeadline, type CallContext } from './http.js';
import { nodePost, type HttpPost } from './http-post.js';
import { LlmError, LlmErrorKind, LlmMalformedStreamError, type ProviderName } from './llm.errors.js';

/** Inputs per request: OpenAI takes up to 2048, compatible servers often far fewer. */
export const EMBEDDINGS_BATCH = 256;
/** One request's whole-call deadline when the caller gives none. */
export const EMBEDDINGS_TIMEOUT_MS = 15_000;

const Answer = z.object({
  data: z.array(z.object({ index: z.number().int().min(0), embedding: z.array(z.number()) })),
  model: z.string().optional(),
  usage: z.object({ prompt_tokens: z.number().int().min(0).optional() }).nullish(),
});

export interface Embedded {
  /** One per input, in input order, all of one width. */
  readonly vectors: Float32Array[];
  /** The model the provider says answered (the configured one when it says nothing). */
  readonly model: string;
  /** `usage.prompt_tokens` summed over the requests (0 when the server reports none). */
  readonly inputTokens: number;
}

export interface EmbeddingsClient {
  readonly type: string;
  readonly model: string;
  /** Asked of the provider and required of its answer; null: the model's own width. */
  readonly dimensions: number | null;
  /** Related in meaning at or above this cosine similarity (`min_similarity`). */
  readonly minSimilarity: number;
  embed(inputs: readonly string[], signal?: AbortSignal): Promise<Embedded>;
}

export interface EmbeddingsClientOptions {
  readonly settings: EmbeddingsSettings;
  /** `${VAR}` lookup for `api_key` and `base_url` (secret store, then environment), at each call. */
  readonly resolve: Resolver;
  readonly post?: HttpPost;
  readonly now?: () => number;
  readonly timeoutMs?: number;
}

/** The key as the block says (`api_key`, else the type's fallback variable), or why there is none. */
function keyOf(
  settings: EmbeddingsSettings,
  resolve: Resolver,
): { key: string | null } | { missing: string } {
  const fallback = envFallbacks[settings.type];
  const written = settings.apiKey ?? (fallback ? `\${${fallback}}` : null);
  // `openai-compatible` without a key calls with no credential (a local server), as an LLM entry does.
  if (written === null) return { key: null };
  const key = substituteRefs(written, resolve).trim();
  return key === ''
    ? { missing: /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(written.trim())?.[1] ?? 'api_key' }
    : { key };
}

export function embeddingsClient(opts: EmbeddingsClientOptions): EmbeddingsClient {
  const { settings } = opts;
  const provider: ProviderName = {
    name: 'providers.embeddings',
    type: settings.type,
    what: 'embeddings provider',
  };
  const ctx = (signal?: AbortSignal): CallContext => ({
    provider,
    timeoutMs: opts.timeoutMs ?? EMBEDDINGS_TIMEOUT_MS,
    signal,
    post: opts.post ?? nodePost,
    now: opts.now ?? Date.now,
  });

  async function request(inputs: readonly string[], signal?: AbortSignal): Promise<Embedded> {
    const credential = keyOf(settings, opts.resolve);
    if ('missing' in credential)
      throw new LlmError(provider, LlmErrorKind.AuthRefused, {
        detail: `no key (${credential.missing} resolves to nothing), nothing sent`,
      });
    const base = resolveBaseUrl(settings.baseUrl, opts.resolve);
    if (!base.ok)
      throw new LlmError(provider, LlmErrorKind.InvalidBaseUrl, { detail: baseUrlDetail(base.unresolved) });
    const call = ctx(signal);
    const url = joinUrl(base.url, 'embeddings');
    return withDeadline(call, async (aborter) => {
      const answer = await postJson(
        call,
        aborter,
        url,
        {
          accept: 'application/json',
          ...(credential.key !== null ? { authorization: `Bearer ${credential.key}` } : {}),
        },
        {
          model: settings.model,
          input: inputs,
          ...(settings.dimensions !== null ? { dimensions: settings.dimensions } : {}),
        },
      );
      let parsed: z.infer<typeof Answer>;
      try {
        // Parser errors quote their input: only our own description leaves here.
        parsed = Answer.parse(JSON.parse(await answer.text()));
      } catch {
        throw new LlmMalformedStreamError(provider, 'the answer is not an embeddings list');
      }
      return checked(parsed, inputs.length);
    });
  }

  function checked(answer: z.infer<typeof Answer>, count: number): Embedded {
    const malformed = (detail: string): LlmError => new LlmMalformedStreamError(provider, detail);
    if (answer.data.length !== count) throw malformed(`${answer.data.length} vectors for ${count} inputs`);
    const vectors: Float32Array[] = new Array<Float32Array>(count);
    for (const item of answer.data) {
      if (item.index >= count || vectors[item.index] !== undefined)
        throw malformed('the vectors do not answer the inputs one to one');
      vectors[item.index] = Float32Array.from(item.embedding);
    }
    const width = settings.dimensions ?? vectors[0]?.length ?? 0;
    if (width > EMBEDDINGS_MAX_WIDTH)
      throw malformed(`vectors of ${width} numbers, above the ${EMBEDDINGS_MAX_WIDTH} this release keeps`);
    for (const vector of vectors) {
      if (vector.length !== width || width === 0)
        throw malformed(
          settings.dimensions !== null
            ? `a vector of ${vector.length} numbers where dimensions is ${settings.dimensions}`
            : 'vectors of different widths',
        );
      if (!vector.every(Number.isFinite)) throw malformed('a vector holds a number out of range');
    }
    return { vectors, model: answer.model ?? settings.model, inputTokens: answer.usage?.prompt_tokens ?? 0 };
  }

  return {
    type: settings.type,
    model: settings.model,
    dimensions: settings.dimensions,
    minSimilarity: settings.minSimilarity,
    async embed(inputs, signal) {
      const vectors: Float32Array[] = [];
      let inputTokens = 0;
      let model = settings.model;
      for (let i = 0; i < inputs.length; i += EMBEDDINGS_BATCH) {
        const part = await request(inputs.slice(i, i + EMBEDDINGS_BATCH), signal);
        vectors.push(...part.vectors);
        inputTokens += part.inputTokens;
        model = part.model;
      }
      // Each answer is one width; without `dimensions`, answers of different requests must agree too.
      if (vectors.some((v) => v.length !== vectors[0]?.length))
        throw new LlmMalformedStreamError(provider, 'vectors of different widths');
      return { vectors, model, inputTokens };
    },
  };
}
