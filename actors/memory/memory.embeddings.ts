/**
 * Personal memory by meaning (ops/providers.md "Embeddings"): a row keeps its content's vector, and a recall
 * with a query ranks rows by cosine similarity to the query's vector. Rows written before embeddings were on
 * (or under another model or width) are embedded in the query's own call and their vectors written back.
 * Any failure of the embeddings call leaves the caller to rank by words: embeddings improve recall, they
 * never stop it.
 */
import type { Logger } from 'pino';
import type { MemoryRow, RecalledRow } from '../toolservers/index.js';

/** What the memory store needs of `providers.embeddings` (the node binds the provider's client). */
export interface MemoryEmbedder {
  readonly model: string;
  /** The width asked of the model; null: the model's own. */
  readonly dimensions: number | null;
  /** One vector per text, in order; `agentId` is whose memory it serves (for spend). Throws on any failure. */
  embed(texts: readonly string[], agentId: string): Promise<Float32Array[]>;
}

export type RowEmbedding = NonNullable<MemoryRow['embedding']>;

export function encodeVector(model: string, vector: Float32Array): RowEmbedding {
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((value, i) => bytes.writeFloatLE(value, i * 4));
  return { model, dimensions: vector.length, vector: bytes.toString('base64') };
}

/** The row's vector when it was made by `embedder`'s model at its width; null otherwise (or unreadable). */
export function vectorOf(row: MemoryRow, embedder: MemoryEmbedder): Float32Array | null {
  const stored = row.embedding;
  if (!stored || stored.model !== embedder.model) return null;
  if (embedder.dimensions !== null && stored.dimensions !== embedder.dimensions) return null;
  const bytes = Buffer.from(stored.vector, 'base64');
  if (bytes.length !== stored.dimensions * 4) return null;
  const vector = new Float32Array(stored.dimensions);
  for (let i = 0; i < vector.length; i += 1) vector[i] = bytes.readFloatLE(i * 4);
  return vector;
}

/** Cosine similarity; -1 (ranked last) for vectors of different widths or a zero vector. */
export function cosine(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return -1;
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i += 1) {
    const x = a[i] as number;
    const y = b[i] as number;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? -1 : dot / Math.sqrt(na * nb);
}

/**
 * Logs a failed embeddings call at WARNING once per kind of failure until a call succeeds again, so a provider
 * that is down is one line, not one per note. Only the error's kind, status and our own message are logged
 * (provider errors never carry the body or the key).
 */
export function failureLog(logger: Logger | undefined): {
  failed(error: unknown, what: string): void;
  succeeded(): void;
} {
  const said = new Set<string>();
  return {
    failed(error, what) {
      const typed = error as { kind?: unknown; status?: unknown; message?: unknown };
      const kind = typeof typed.kind === 'string' ? typed.kind : 'error';
      if (said.has(kind)) return;
      said.add(kind);
      logger?.warn(
        {
          event: 'embeddings_failed',
          kind,
          status: typeof typed.status === 'number' ? typed.status : null,
          // Typed provider errors say the kind and status only; anything else is named, not quoted.
          reason: typeof typed.kind === 'string' && typeof typed.message === 'string' ? typed.message : null,
        },
        `embeddings call failed; ${what} (said once until a call succeeds)`,
      );
    },
    succeeded: () => said.clear(),
  };
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
    .map(({ row: { embedding: _e, ...row }, similarity }) => ({ ...row, similarity }));
}
