/**
 * The seats' personal memory store (`PersonalMemory`), kept in the KV bucket `svc_memory` so every node
 * and both bus engines see the same rows: one key `<agent id>.<memory id>` per row, written once.
 *   - recall without a query: newest first; with one: ranked by meaning when `providers.embeddings` is on
 *     (memory.embeddings.ts), else (or when the embeddings call fails) by `scoreRow` (rows matching no term
 *     are left out), ties newest first. Expired short rows stay stored and come back only on request.
 *   - with embeddings on, `remember` keeps the content's vector in the row (none when the call fails).
 *   - `forget` deletes one row of the agent's; the key's history (deletes included) tells a row removed
 *     before from one the agent never had.
 *   - at most `maxRows` rows per agent: a write past the cap evicts expired short rows first (soonest
 *     expired first), then other short rows, then reflection's lessons, then long ones, oldest first.
 */
import type { Logger } from 'pino';
import type { Kv } from '../../bus/index.js';
import { MemoryKind, MemoryRow, type MemoryQuery, type PersonalMemory } from '../toolservers/index.js';
import { failureLog } from '../../schema/index.js';
import { encodeVector, rankByMeaning, type MemoryEmbedder, type Stored } from './memory.embeddings.js';

/** Rows kept per agent: a seat cannot grow the bucket past this. */
export const MEMORY_ROWS_PER_AGENT = 500;

export interface MemoryStore extends PersonalMemory {
  /** Every stored row of an agent, unordered (expired ones included). */
  rows(agentId: string): Promise<MemoryRow[]>;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
/** KV key tokens: an agent id is a UUID and a memory id one the tool made, but never trust either. */
const safeToken = /^[A-Za-z0-9_-]+$/;

function token(value: string, what: string): string {
  if (!safeToken.test(value)) throw new Error(`${what} ${JSON.stringify(value)} cannot name a memory row`);
  return value;
}

const ms = (iso: string | null): number => (iso === null ? NaN : Date.parse(iso));
const isExpired = (row: MemoryRow, nowMs: number): boolean =>
  row.kind === MemoryKind.Short && row.ttl_until !== null && ms(row.ttl_until) <= nowMs;
const newestFirst = (a: MemoryRow, b: MemoryRow): number => ms(b.created_at) - ms(a.created_at);

/** Lower-cased words of a text (letters and digits, any script). */
export function termsOf(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/**
 * How well a row answers a query: per distinct query term, 2 when a word of the row's content or
 * metadata (keys and values) equals it, else 1 when such a word starts with it; 0 matches nothing.
 */
export function scoreRow(row: MemoryRow, query: string): number {
  const words = new Set([
    ...termsOf(row.content),
    ...Object.entries(row.metadata).flatMap(([k, v]) => termsOf(`${k} ${String(v)}`)),
  ]);
  let score = 0;
  for (const term of new Set(termsOf(query))) {
    if (words.has(term)) score += 2;
    else if ([...words].some((w) => w.startsWith(term))) score += 1;
  }
  return score;
}

/**
 * Eviction order past the cap: expired short rows, then live short rows, then the lessons reflection wrote
 * (so they never crowd out the notes a seat chose to keep), then long rows; oldest first.
 */
function evictionRank(row: MemoryRow, nowMs: number): [number, number] {
  if (isExpired(row, nowMs)) return [0, ms(row.ttl_until)];
  if (row.kind === MemoryKind.Short) return [1, ms(row.created_at)];
  return [row.metadata['source'] === 'reflection' ? 2 : 3, ms(row.created_at)];
}

export function createMemoryStore(opts: {
  readonly kv: Kv;
  readonly maxRows?: number;
  readonly now?: () => Date;
  /** `providers.embeddings` as read at start; null or absent: rows are ranked by words only. */
  readonly embedder?: () => MemoryEmbedder | null;
  /** Hears a failed embeddings call (WARNING, once per kind until one succeeds). */
  readonly logger?: Logger;
}): MemoryStore {
  const { kv } = opts;
  const maxRows = opts.maxRows ?? MEMORY_ROWS_PER_AGENT;
  const now = opts.now ?? (() => new Date());
  const keyOf = (agentId: string, id: string): string =>
    `${token(agentId, 'agent id')}.${token(id, 'memory id')}`;

  const embedderNow = (): MemoryEmbedder | null => opts.embedder?.() ?? null;
  const failures = failureLog(opts.logger);

  async function stored(agentId: string): Promise<Stored[]> {
    const keys = await kv.keys(`${token(agentId, 'agent id')}.*`);
    const out: Stored[] = [];
    // Read in chunks: a full agent is a few hundred keys.
    for (let i = 0; i < keys.length; i += 64) {
      const part = keys.slice(i, i + 64);
      const entries = await Promise.all(part.map((key) => kv.get(key)));
      entries.forEach((entry, j) => {
        if (!entry) return;
        try {
          const parsed = MemoryRow.safeParse(JSON.parse(decoder.decode(entry.value)));
          if (parsed.success)
            out.push({ row: parsed.data, key: part[j] as string, revision: entry.revision });
        } catch {
          // An unreadable row is skipped; the others still answer.
        }
      });
    }
    return out;
  }

  const rows = async (agentId: string): Promise<MemoryRow[]> => (await stored(agentId)).map((s) => s.row);

  /** The row with its content's vector, or as it is when embeddings are off or the call fails. */
  async function withVector(agentId: string, row: MemoryRow): Promise<MemoryRow> {
    const embedder = embedderNow();
    if (!embedder) return row;
    try {
      const [vector] = await embedder.embed([row.content], agentId);
      failures.succeeded();
      return vector ? { ...row, embedding: encodeVector(embedder.model, vector) } : row;
    } catch (error) {
      failures.failed(error, 'the note is kept without a vector (a later recall embeds it)');
      return row;
    }
  }

  async function enforceCap(agentId: string, keep: string): Promise<void> {
    const keys = await kv.keys(`${agentId}.*`);
    if (keys.length <= maxRows) return;
    const nowMs = now().getTime();
    const candidates = (await rows(agentId))
      .filter((row) => row.id !== keep)
      .sort((a, b) => {
        const [ca, ta] = evictionRank(a, nowMs);
        const [cb, tb] = evictionRank(b, nowMs);
        return ca - cb || ta - tb;
      });
    for (const row of candidates.slice(0, keys.length - maxRows)) await kv.delete(keyOf(agentId, row.id));
  }

  return {
    rows,
    async remember(agentId, row) {
      const valid = await withVector(agentId, MemoryRow.parse(row));
      await kv.put(keyOf(agentId, valid.id), encoder.encode(JSON.stringify(valid)));
      await enforceCap(agentId, valid.id);
    },
    async forget(agentId, id) {
      // An id that cannot name a row names none of this agent's.
      if (!safeToken.test(id)) return 'unknown';
      const key = keyOf(agentId, id);
      if (await kv.get(key)) {
        await kv.delete(key);
        return 'forgotten';
      }
      return (await kv.history(key)).length > 0 ? 'gone' : 'unknown';
    },
    async recall(agentId, query: MemoryQuery) {
      const nowMs = query.now.getTime();
      const entries = (await stored(agentId)).filter(
        ({ row }) =>
          (query.kind === null || row.kind === query.kind) &&
          (query.include_expired || !isExpired(row, nowMs)),
      );
      const kept = entries.map(({ row: { embedding: _vector, ...row } }) => row);
      const text = query.query?.trim() ?? '';
      if (text === '') return kept.sort(newestFirst).slice(0, query.limit);
      const embedder = embedderNow();
      const byMeaning =
        embedder && entries.length > 0
          ? await rankByMeaning({
              embedder,
              agentId,
              query: text,
              rows: entries,
              limit: query.limit,
              failures,
              // Only the row as read: one removed or rewritten meanwhile is left alone.
              writeBack: async (at, row) => {
                await kv.update(at.key, encoder.encode(JSON.stringify(row)), at.revision);
              },
            })
          : null;
      if (byMeaning) return byMeaning;
      return kept
        .map((row) => ({ row, score: scoreRow(row, text) }))
        .filter((r) => r.score > 0)
        .sort((a, b) => b.score - a.score || newestFirst(a.row, b.row))
        .slice(0, query.limit)
        .map((r) => r.row);
    },
  };
}
