/**
 * What the node makes of `providers.embeddings` (ops/providers.md "Embeddings"): the settings a client is
 * built from, or why none is. The schema keeps any `type` (stored documents must stay valid); a block this
 * release cannot use is a `not_applied` warning at its path instead (not-applied.ts), read here once for both.
 */
import { isRecord } from './walk.js';

export const EmbeddingsType = {
  OpenAI: 'openai',
  OpenAICompatible: 'openai-compatible',
} as const;
export type EmbeddingsType = (typeof EmbeddingsType)[keyof typeof EmbeddingsType];

/**
 * The widest vector kept: the widest models answer 3,072 numbers, and a row or page holding a vector must stay
 * well under a bus message (1 MiB on a default nats-server) however wide a server answers.
 */
export const EMBEDDINGS_MAX_WIDTH = 8192;

/**
 * Where "related in meaning" starts without `min_similarity`: OpenAI's text-embedding-3 models put unrelated
 * short texts near 0.1–0.25 and texts on one subject near 0.3–0.6. Models that score everything higher (many
 * self-hosted ones put unrelated texts near 0.5) need it raised.
 */
export const EMBEDDINGS_MIN_SIMILARITY = 0.3;

/** `openai` without `base_url` calls here. */
export const OPENAI_EMBEDDINGS_BASE_URL = 'https://api.openai.com/v1';

/** A usable block, as written: `${VAR}` references in `base_url` and `api_key` are resolved per call. */
export interface EmbeddingsSettings {
  readonly type: EmbeddingsType;
  readonly model: string;
  readonly baseUrl: string;
  /** As written; absent or empty: the type's environment fallback (`openai`: `OPENAI_API_KEY`). */
  readonly apiKey: string | null;
  /** Asked of the provider and required of its answer; null: the model's own width. */
  readonly dimensions: number | null;
  /** A page found by meaning, a lesson kept for a turn: at or above this cosine similarity. */
  readonly minSimilarity: number;
}

export type EmbeddingsRead =
  /** Nothing written (absent, or an empty map): personal memory recalls by words, no warning. */
  | { readonly kind: 'absent' }
  | { readonly kind: 'usable'; readonly settings: EmbeddingsSettings }
  /** Written but not usable: the `not_applied` warning's message. */
  | { readonly kind: 'unusable'; readonly message: string };

const fallback =
  'so nothing computes embeddings: personal memory recalls by words and knowledge base search finds by words only';

/** Reads a `providers.embeddings` value (typed or raw: a dry run's document is checked before it parses). */
export function readEmbeddings(block: unknown): EmbeddingsRead {
  if (!isRecord(block) || Object.keys(block).length === 0) return { kind: 'absent' };
  const type = block['type'] ?? EmbeddingsType.OpenAI;
  if (type !== EmbeddingsType.OpenAI && type !== EmbeddingsType.OpenAICompatible)
    return {
      kind: 'unusable',
      message: `not applied: this release speaks the \`openai\` and \`openai-compatible\` embeddings wires only, ${fallback}`,
    };
  const model = typeof block['model'] === 'string' ? block['model'].trim() : '';
  if (model === '') return { kind: 'unusable', message: `not applied: no \`model\` is set, ${fallback}` };
  const written = typeof block['base_url'] === 'string' ? block['base_url'].trim() : '';
  if (type === EmbeddingsType.OpenAICompatible && written === '')
    return {
      kind: 'unusable',
      message: `not applied: \`openai-compatible\` needs a \`base_url\` (its endpoint), ${fallback}`,
    };
  const key =
    typeof block['api_key'] === 'string' && block['api_key'].trim() !== '' ? block['api_key'] : null;
  const dimensions = typeof block['dimensions'] === 'number' ? block['dimensions'] : null;
  if (dimensions !== null && dimensions > EMBEDDINGS_MAX_WIDTH)
    return {
      kind: 'unusable',
      message: `not applied: \`dimensions\` is above ${EMBEDDINGS_MAX_WIDTH}, the widest vector this release keeps, ${fallback}`,
    };
  const minSimilarity =
    typeof block['min_similarity'] === 'number' ? block['min_similarity'] : EMBEDDINGS_MIN_SIMILARITY;
  return {
    kind: 'usable',
    settings: {
      type,
      model,
      baseUrl: written || OPENAI_EMBEDDINGS_BASE_URL,
      apiKey: key,
      dimensions,
      minSimilarity,
    },
  };
}
