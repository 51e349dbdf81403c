/**
 * Personal memory by meaning (ops/providers.md "Embeddings"): a row keeps its content's vector, and a recall
 * with a query ranks rows by cosine similarity to the query's vector. Rows written before embeddings were on
 * (or under another model or width) are embedded in the query's own call and their vectors written back.
 * Any failure of the embeddings call leaves the caller to rank by words: embeddings improve recall, they
 * never stop it.
 */
import { cosine, vectorFromBase64, vectorToBase64, type failureLog } from '../../schema/index.js';
import type { MemoryRow, RecalledRow } from '../toolservers/index.js';

/** What the memory store needs of `providers.embeddings` (the node binds the provider's client). */
export interface MemoryEmbedder {
  readonly model: string;
  /** The width asked of the model; null: the model's own. */
  readonly dimensions: number | null;
  /** A row at or above this cosine similarity to the query is `related` (a lesson bears on a turn). */
  readonly minSimilarity: number;
  /** One vector per text, in order; `agentId` is whose memory it serves (for spend). Throws on any failure. */
  embed(texts: readonly string[], agentId: string): Promise<Float32Array[]>;
}

export type RowEmbedding = NonNullable<MemoryRow['embedding']>;

export function encodeVector(model: string, vector: Float32Array): RowEmbedding {
  return { model, dimensions: vector.length, vector: vectorToBase64(vector) };
}

/** The row's vector when it was made by `embedder`'s model at its width; null otherwise (or unreadable). */
export function vectorOf(row: MemoryRow, embedder: MemoryEmbedder): Float32Array | null {
  const stored = row.embedding;
  if (!stored || stored.model !== embedder.model) return null;
  if (embedder.dimensions !== null && stored.dimensions !== embedder.dimensions) return null;
  return vectorFromBase64(stored.vector, stored.dimensions);
}

export interface Stored {
  readonly row: MemoryRow;
  readonly key: string;
  readonly revision: number;
}

/**
 * `rows` ranked by meaning: the query and every row lacking a current vector go in one batched call, the new
 * vectors are written back (best effort, `writeBack`), and the top `limit` return, ties newest first. Null
 * when the call failed: the caller ranks by words.
 */
export async function rankByMeaning(opts: {
  readonly embedder: MemoryEmbedder;
  readonly agentId: string;
  readonly query: string;
  readonly rows: readonly Stored[];
  readonly limit: number;
  readonly writeBack: (stored: Stored, row: MemoryRow) => Promise<void>;
  readonly failures: ReturnType<typeof failureLog>;
}): Promise<RecalledRow[] | null> {
  const { embedder } = opts;
  const known = opts.rows.map((stored) => ({ stored, vector: vectorOf(stored.row, embedder) }));
  const missing = known.filter((k) => k.vector === null);
  let vectors: Float32Array[];
  try {
    vectors = await embedder.embed([opts.query, ...missing.map((m) => m.stored.row.content)], opts.agentId);
    opts.failures.succeeded();
  } catch (error) {
    opts.failures.failed(error, 'recall ranks by words');
    return null;
  }
  const [asked, ...filled] = vectors;
  if (!asked) return null;
  const backfills: Array<Promise<void>> = [];
  missing.forEach((m, i) => {
    const vector = filled[i];
    if (!vector) return;
    m.vector = vector;
    const row = { ...m.stored.row, embedding: encodeVector(embedder.model, vector) };
    backfills.push(opts.writeBack(m.stored, row).catch(() => undefined));
  });
  await Promise.all(backfills);
  const time = (row: MemoryRow): number => Date.parse(row.created_at);
  return known
    .map(({ stored, vector }) => ({ row: stored.row, similarity: vector ? cosine(asked, vector) : -1 }))
    .sort((a, b) => b.similarity - a.similarity || time(b.row) - time(a.row))
    .slice(0, opts.limit)
    .map(({ row: { embedding: _e, ...row }, similarity }) => ({
      ...row,
      similarity,
      related: similarity >= embedder.minSimilarity,
    }));
}
