/**
 * Full-text search over the pages (ops/knowledge-base.md "Search"): an in-memory SQLite FTS5 table the
 * projection keeps in step with every fold, so a replay rebuilds it exactly. Ranked by BM25 with the
 * title weighted ten times the body; every word of the query must appear (prefix-free, diacritics and
 * case ignored).
 */
import Database from 'better-sqlite3';

export interface SearchHit {
  readonly page_id: string;
  /** BM25 as SQLite gives it: lower is better; shown negated so higher reads as more relevant. */
  readonly score: number;
  readonly snippet: string;
}

/** The words of a query, each quoted so FTS5 syntax in user text is never interpreted. */
export function queryTerms(q: string): string[] {
  return [...q.matchAll(/[\p{L}\p{N}_]+/gu)].map((m) => m[0]).slice(0, 32);
}

export class PagesIndex {
  private readonly db = new Database(':memory:');
  private readonly put: Database.Statement<[string, string, string, string]>;
  private readonly drop: Database.Statement<[string]>;

  constructor() {
    this.db.exec(
      `CREATE VIRTUAL TABLE pages_fts USING fts5(page_id UNINDEXED, container UNINDEXED, title, body,
         tokenize = 'unicode61 remove_diacritics 2')`,
    );
    this.put = this.db.prepare('INSERT INTO pages_fts (page_id, container, title, body) VALUES (?, ?, ?, ?)');
    this.drop = this.db.prepare('DELETE FROM pages_fts WHERE page_id = ?');
  }

  upsert(page: { id: string; container: string; title: string; body: string }): void {
    this.drop.run(page.id);
    this.put.run(page.id, page.container, page.title, page.body);
  }

  remove(pageId: string): void {
    this.drop.run(pageId);
  }

  /** Matches of every term, best first; `container` narrows; `offset`/`limit` page through them. */
  search(
    terms: readonly string[],
    opts: { container?: string; limit: number; offset: number },
  ): { hits: SearchHit[]; more: boolean } {
    if (terms.length === 0) return { hits: [], more: false };
    const match = terms.map((t) => `"${t.replace(/"/g, '""')}"`).join(' ');
    const where = opts.container === undefined ? '' : 'AND container = @container';
    const rows = this.db
      .prepare(
        `SELECT page_id, bm25(pages_fts, 0.0, 0.0, 10.0, 1.0) AS rank,
                snippet(pages_fts, 3, '[', ']', '…', 16) AS snippet
           FROM pages_fts WHERE pages_fts MATCH @match ${where}
          ORDER BY rank, page_id LIMIT @limit OFFSET @offset`,
      )
      .all({
        match,
        limit: opts.limit + 1,
        offset: opts.offset,
        ...(opts.container === undefined ? {} : { container: opts.container }),
      }) as Array<{ page_id: string; rank: number; snippet: string }>;
    const hits = rows.slice(0, opts.limit).map((r) => ({
      page_id: r.page_id,
      score: -r.rank,
      snippet: r.snippet,
    }));
    return { hits, more: rows.length > opts.limit };
  }

  close(): void {
    this.db.close();
  }
}
