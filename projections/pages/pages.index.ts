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

/** An FTS5 query asking for every term, each quoted. */
const matchOf = (terms: readonly string[]): string =>
  terms.map((t) => `"${t.replace(/"/g, '""')}"`).join(' ');

/** BM25 with the title weighing ten times the body (page_id and container are not text). */
const BM25 = 'bm25(pages_fts, 0.0, 0.0, 10.0, 1.0)';

export class PagesIndex {
  private readonly db = new Database(':memory:');
  private readonly put: Database.Statement<[number, string, string, string, string]>;
  private readonly drop: Database.Statement<[number]>;
  /**
   * Each indexed page's FTS5 rowid. An UNINDEXED column is no key: a delete by page_id scanned every row,
   * so folding N pages cost N² and a knowledge base of 10,000 pages took seconds to boot.
   */
  private readonly rowids = new Map<string, number>();
  private nextRowid = 1;

  constructor() {
    this.db.exec(
      `CREATE VIRTUAL TABLE pages_fts USING fts5(page_id UNINDEXED, container UNINDEXED, title, body,
         tokenize = 'unicode61 remove_diacritics 2')`,
    );
    this.put = this.db.prepare(
      'INSERT INTO pages_fts (rowid, page_id, container, title, body) VALUES (?, ?, ?, ?, ?)',
    );
    // better-sqlite3 binds a JS number as a REAL, and FTS5 ignores a rowid constraint of that type: the
    // cast keeps `rowid = ?` a key lookup rather than a match of every row.
    this.drop = this.db.prepare('DELETE FROM pages_fts WHERE rowid = CAST(? AS INTEGER)');
  }

  upsert(page: { id: string; container: string; title: string; body: string }): void {
    this.remove(page.id);
    const rowid = this.nextRowid++;
    this.put.run(rowid, page.id, page.container, page.title, page.body);
    this.rowids.set(page.id, rowid);
  }

  remove(pageId: string): void {
    const rowid = this.rowids.get(pageId);
    if (rowid === undefined) return;
    this.drop.run(rowid);
    this.rowids.delete(pageId);
  }

  /**
   * Matches of every term, best first (then by page id); `container` narrows; `after` starts strictly
   * after a hit of an earlier page. Scores move as pages are written (BM25 weighs each word by how many
   * pages hold it), so the cursor's page is placed by its score now; a page gone since by the score it had.
   */
  search(
    terms: readonly string[],
    opts: { container?: string; limit: number; after?: { score: number; id: string } },
  ): { hits: SearchHit[]; more: boolean } {
    if (terms.length === 0) return { hits: [], more: false };
    const match = matchOf(terms);
    const scope = opts.container === undefined ? {} : { container: opts.container };
    const inContainer = opts.container === undefined ? '' : 'AND container = @container';
    let keyset = '';
    let from = {};
    if (opts.after !== undefined) {
      const rowid = this.rowids.get(opts.after.id);
      const now =
        rowid === undefined
          ? undefined
          : (this.db
              .prepare(
                `SELECT ${BM25} AS rank FROM pages_fts WHERE pages_fts MATCH @match AND rowid = CAST(@rowid AS INTEGER)`,
              )
              .get({ match, rowid }) as { rank: number } | undefined);
      // The hidden column `rank` would win over the alias in WHERE: the expression is spelled out.
      keyset = `AND (${BM25} > @after OR (${BM25} = @after AND page_id > @after_id))`;
      from = { after: now?.rank ?? -opts.after.score, after_id: opts.after.id };
    }
    const rows = this.db
      .prepare(
        `SELECT page_id, ${BM25} AS rank, snippet(pages_fts, 3, '[', ']', '…', 16) AS snippet
           FROM pages_fts WHERE pages_fts MATCH @match ${inContainer} ${keyset}
          ORDER BY rank, page_id LIMIT @limit`,
      )
      .all({ match, limit: opts.limit + 1, ...scope, ...from }) as Array<{
      page_id: string;
      rank: number;
      snippet: string;
    }>;
    const hits = rows.slice(0, opts.limit).map((r) => ({
      page_id: r.page_id,
      score: -r.rank,
      snippet: r.snippet,
    }));
    return { hits, more: rows.length > opts.limit };
  }

  /** Every page matching every term (`container` narrows), in no order. */
  matching(terms: readonly string[], container?: string): Set<string> {
    if (terms.length === 0) return new Set();
    const rows = this.db
      .prepare(
        `SELECT page_id FROM pages_fts WHERE pages_fts MATCH @match ${container === undefined ? '' : 'AND container = @container'}`,
      )
      .all({ match: matchOf(terms), ...(container === undefined ? {} : { container }) }) as Array<{
      page_id: string;
    }>;
    return new Set(rows.map((r) => r.page_id));
  }

  close(): void {
    this.db.close();
  }
}
