/**
 * Page vectors for search by meaning (ops/knowledge-base.md "Search"): one per page at one revision, kept
 * in the fleet's KV bucket `svc_page_vectors` (key = page id) and cached on each node, so a vector is
 * embedded once for the fleet and survives restarts. A vector made by another model or width, or for an
 * older revision, is stale and embedded again.
 */
import { z } from 'zod';
import type { Kv } from '../../bus/index.js';
import { unitVector, vectorFromBase64, vectorToBase64, type ServiceCaller } from '../../schema/index.js';
import type { Page } from './pages.state.js';

/** What search needs of `providers.embeddings` (the node binds the provider's client). */
export interface PagesEmbedder {
  readonly model: string;
  /** The width asked of the model; null: the model's own. */
  readonly dimensions: number | null;
  /** A page is a meaning hit at or above this cosine similarity. */
  readonly minSimilarity: number;
  /** One vector per text, in order; `caller` is who searched (for spend). Throws on any failure. */
  embed(texts: readonly string[], caller: ServiceCaller | null): Promise<Float32Array[]>;
}

/** Pages embedded during one search at most; the rest wait for the next search. */
const PAGE_EMBED_CAP = 512;
/** Characters of a page (title, blank line, body) its vector covers: embedding models take a few thousand tokens. */
export const PAGE_TEXT_CHARS = 8_000;
/** Bucket reads in flight at once while a node fills its cache. */
const READS_AT_ONCE = 64;
/** Query vectors a node keeps (newest used), so paging through one search does not embed its query again. */
const QUERIES_KEPT = 64;

const Stored = z.object({
  revision: z.number().int().positive(),
  model: z.string(),
  dimensions: z.number().int().positive(),
  vector: z.string(),
});

/**
 * A page's vector as this node keeps it: scaled to length 1 (null: a zero vector), so each search compares
 * by dot products; the vector as made lives in the bucket only, so a node holds one copy per page.
 */
interface Cached {
  readonly revision: number;
  readonly model: string;
  readonly dimensions: number;
  readonly unit: Float32Array | null;
}

const cached = (revision: number, model: string, vector: Float32Array): Cached => ({
  revision,
  model,
  dimensions: vector.length,
  unit: unitVector(vector),
});

export const pageText = (page: Page): string => `${page.title}\n\n${page.body}`.slice(0, PAGE_TEXT_CHARS);

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export interface PageVectors {
  /**
   * The vectors of `pages` made by `embedder` at their current revision (`unitOf`; undefined for a page
   * without one), with the query's vector, all scaled to length 1 so a cosine is their dot product (a zero
   * vector relates to nothing: a page's is left out, the query's is null). The stale or missing ones (up to
   * PAGE_EMBED_CAP) are embedded in the query's call and written to the bucket; a query this node embedded
   * lately is not embedded again. Throws when the call fails.
   */
  withQuery(
    query: string,
    pages: readonly Page[],
    embedder: PagesEmbedder,
    caller: ServiceCaller | null,
  ): Promise<{ query: Float32Array | null; unitOf: (page: Page) => Float32Array | undefined }>;
  /**
   * Embeds up to `max` of `pages` whose current vector neither this node nor the bucket holds, and writes
   * them to the bucket: the background fill, so searches find the vectors made. Answers how many it made;
   * throws when the call fails.
   */
  fill(
    pages: readonly Page[],
    embedder: PagesEmbedder,
    caller: ServiceCaller | null,
    max: number,
  ): Promise<number>;
  /**
   * Reads from the bucket the current vectors of `pages` this node does not hold (at start, so the first
   * search does not wait for thousands of reads); embeds nothing. Answers how many of `pages` it now holds.
   */
  warm(pages: readonly Page[], embedder: PagesEmbedder): Promise<number>;
  /** Drops the vectors of pages no longer live that this node holds (from its cache and the bucket). */
  forget(live: (pageId: string) => boolean): void;
}

export function pageVectors(kv: Kv, opts: { readonly cap?: number } = {}): PageVectors {
  const cap = opts.cap ?? PAGE_EMBED_CAP;
  const cache = new Map<string, Cached>();
  // Keyed by model, width and text; a Map keeps insertion order, so the first key is the least recently used.
  const queries = new Map<string, Float32Array>();
  const queryKey = (query: string, embedder: PagesEmbedder): string =>
    JSON.stringify([embedder.model, embedder.dimensions, query]);
  const keepQuery = (key: string, vector: Float32Array): void => {
    queries.delete(key);
    queries.set(key, vector);
    if (queries.size > QUERIES_KEPT) queries.delete(queries.keys().next().value as string);
  };
  const current = (c: Cached | undefined, page: Page, embedder: PagesEmbedder): boolean =>
    c !== undefined &&
    c.revision === page.version &&
    c.model === embedder.model &&
    (embedder.dimensions === null || c.dimensions === embedder.dimensions);

  async function read(page: Page): Promise<void> {
    const entry = await kv.get(page.id).catch(() => null);
    if (!entry) return;
    let parsed: z.infer<typeof Stored>;
    try {
      parsed = Stored.parse(JSON.parse(decoder.decode(entry.value)));
    } catch {
      return;
    }
    const vector = vectorFromBase64(parsed.vector, parsed.dimensions);
    if (vector) cache.set(page.id, cached(parsed.revision, parsed.model, vector));
  }

  async function write(pageId: string, revision: number, model: string, vector: Float32Array): Promise<void> {
    const value = { revision, model, dimensions: vector.length, vector: vectorToBase64(vector) };
    // Best effort: a vector not written is embedded again by a later search.
    await kv.put(pageId, encoder.encode(JSON.stringify(value))).catch(() => undefined);
  }

  /** The pages whose current vector is neither cached nor in the bucket (written by a peer, or before a restart). */
  async function lacking(pages: readonly Page[], embedder: PagesEmbedder): Promise<Page[]> {
    const unknown = pages.filter((p) => !current(cache.get(p.id), p, embedder));
    for (let i = 0; i < unknown.length; i += READS_AT_ONCE)
      await Promise.all(unknown.slice(i, i + READS_AT_ONCE).map(read));
    return unknown.filter((p) => !current(cache.get(p.id), p, embedder));
  }

  /** Caches the vectors made for `pages` (in order) and writes them to the bucket. */
  async function keep(pages: readonly Page[], vectors: readonly Float32Array[], embedder: PagesEmbedder) {
    const writes: Array<Promise<void>> = [];
    pages.forEach((page, i) => {
      const vector = vectors[i];
      if (!vector) return;
      cache.set(page.id, cached(page.version, embedder.model, vector));
      writes.push(write(page.id, page.version, embedder.model, vector));
    });
    await Promise.all(writes);
  }

  return {
    async withQuery(query, pages, embedder, caller) {
      const missing = (await lacking(pages, embedder)).slice(0, cap);
      const key = queryKey(query, embedder);
      const known = queries.get(key);
      // Nothing to embed when the query's vector is kept and every page's is current: no call at all.
      const answered =
        known !== undefined && missing.length === 0
          ? []
          : await embedder.embed(known ? missing.map(pageText) : [query, ...missing.map(pageText)], caller);
      const asked = known ?? answered.shift();
      if (!asked) throw new Error('no vector for the query');
      keepQuery(key, asked);
      await keep(missing, answered, embedder);
      // Looked up as the search compares, not gathered first: one pass over the pages, no map per search.
      const unitOf = (page: Page): Float32Array | undefined => {
        const c = cache.get(page.id);
        return c?.unit && current(c, page, embedder) ? c.unit : undefined;
      };
      return { query: unitVector(asked), unitOf };
    },
    async warm(pages, embedder) {
      const lack = await lacking(pages, embedder);
      return pages.length - lack.length;
    },
    async fill(pages, embedder, caller, max) {
      const missing = (await lacking(pages, embedder)).slice(0, max);
      if (missing.length === 0) return 0;
      await keep(missing, await embedder.embed(missing.map(pageText), caller), embedder);
      return missing.length;
    },
    forget(live) {
      for (const id of cache.keys())
        if (!live(id)) {
          cache.delete(id);
          // Best effort: a vector left behind is never read, as searches ask only for live pages.
          void kv.delete(id).catch(() => undefined);
        }
    },
  };
}
