/**
 * Search with `providers.embeddings` on (ops/knowledge-base.md "Search"): the word hits first, exactly as
 * without (every word present, BM25), then the pages closest in meaning to the query that the words did
 * not find, by cosine similarity of their vectors (pages.vectors.ts: the dot product of their unit vectors).
 * A cursor names its part: a word hit (`pages.relevance`) or a meaning hit (`pages.meaning`), both bound to
 * the query's words. Any failure of the embeddings call leaves the words part alone: the answer is then what
 * it is without embeddings.
 */
import {
  dot,
  encodeCursor,
  failureLog,
  ListOrder,
  type ServiceCaller,
  type WarnLogger,
} from '../../schema/index.js';
import { firstInOrder } from '../query/first.js';
import { queryTerms } from './pages.index.js';
import {
  listPages,
  pageRow,
  searchFingerprint,
  underParent,
  wordHits,
  type PageList,
  type PageListQuery,
  type SearchRow,
} from './pages.queries.js';
import type { Page, PagesState } from './pages.state.js';
import type { PagesEmbedder, PageVectors } from './pages.vectors.js';

/** Meaning hits of one search at most (after the word hits). */
export const MEANING_HITS = 50;
/** Characters of a meaning hit's body shown as its snippet. */
const SNIPPET_CHARS = 160;
/** Above any cosine: the position before the first meaning hit (a cursor when the words end a page). */
const MEANING_START = 2;

export interface PagesMeaning {
  readonly vectors: PageVectors;
  /** The embedder while `providers.embeddings` is usable; null: search by words only. */
  readonly embedder: () => PagesEmbedder | null;
  readonly logger?: WarnLogger;
}

const snippetOf = (body: string): string => {
  const text = body.replace(/\s+/gu, ' ').trim();
  return text.length > SNIPPET_CHARS ? `${text.slice(0, SNIPPET_CHARS)}…` : text;
};

interface MeaningHit {
  readonly page: Page;
  readonly similarity: number;
}

/**
 * Best first; ids compare as the cursor compares them (code units), so a page ends exactly where the next
 * starts.
 */
const before = (a: MeaningHit, b: MeaningHit): boolean =>
  a.similarity > b.similarity || (a.similarity === b.similarity && a.page.id < b.page.id);

export function pagesSearch(meaning: PagesMeaning | undefined) {
  const failures = failureLog(meaning?.logger);

  /**
   * The meaning hits best first (then by id), at most MEANING_HITS, none below the block's `min_similarity`;
   * null when the embeddings call failed.
   */
  async function meaningHits(
    state: PagesState,
    q: string,
    query: PageListQuery,
    use: { readonly vectors: PageVectors; readonly embedder: PagesEmbedder },
    caller: ServiceCaller | null,
  ): Promise<MeaningHit[] | null> {
    const byWords = state.index.matching(queryTerms(q), query.container);
    const candidates = [...state.pages.values()].filter(
      (p) =>
        !byWords.has(p.id) &&
        (query.container === undefined || p.container === query.container) &&
        underParent(p, query.parent),
    );
    let found: Awaited<ReturnType<PageVectors['withQuery']>>;
    try {
      found = await use.vectors.withQuery(q, candidates, use.embedder, caller);
      failures.succeeded();
    } catch (error) {
      failures.failed(error, 'knowledge base search finds by words only');
      return null;
    }
    use.vectors.forget((id) => state.pages.has(id));
    const asked = found.query;
    if (asked === null) return [];
    function* related(query: Float32Array): Generator<MeaningHit> {
      for (const page of candidates) {
        const unit = found.unitOf(page);
        const similarity = unit === undefined ? -1 : dot(query, unit);
        if (similarity >= use.embedder.minSimilarity) yield { page, similarity };
      }
    }
    // The best few kept as the pages are compared, not every related page sorted.
    return firstInOrder(related(asked), MEANING_HITS, before);
  }

  /** A page of `GET /pages` / `pages_search`: title order without `q`, words then meaning with. */
  return async function search(
    state: PagesState,
    query: PageListQuery,
    caller: ServiceCaller | null,
  ): Promise<PageList> {
    const embedder = meaning?.embedder() ?? null;
    const q = query.q;
    if (q === undefined || meaning === undefined || embedder === null) return listPages(state, query);
    const inMeaning = query.after !== undefined && 'part' in query.after;
    const words = inMeaning ? { rows: [], next: null } : wordHits(state, q, query);
    const wordsOnly = {
      pages: words.rows,
      total: null,
      next_cursor: words.next && encodeCursor(ListOrder.PagesRelevance, words.next),
    };
    // More word hits to come: the meaning part waits for the page after the last of them.
    if (words.next !== null) return wordsOnly;
    const ranked = await meaningHits(state, q, query, { vectors: meaning.vectors, embedder }, caller);
    if (ranked === null) return wordsOnly;
    const after = inMeaning && typeof query.after?.key === 'number' ? query.after : null;
    const rest =
      after === null
        ? ranked
        : ranked.filter(
            (h) => h.similarity < after.key || (h.similarity === after.key && h.page.id > after.id),
          );
    const room = query.limit - words.rows.length;
    const shown = rest.slice(0, room);
    const rows: SearchRow[] = shown.map((h) => ({
      ...pageRow(state, h.page),
      score: h.similarity,
      snippet: snippetOf(h.page.body),
      match: 'meaning',
    }));
    const last = shown.at(-1);
    const fingerprint = searchFingerprint(q);
    const next =
      rest.length <= shown.length
        ? null
        : last === undefined
          ? { key: MEANING_START, id: '', fingerprint }
          : { key: last.similarity, id: last.page.id, fingerprint };
    return {
      pages: [...words.rows, ...rows],
      total: null,
      next_cursor: next && encodeCursor(ListOrder.PagesMeaning, next),
    };
  };
}
