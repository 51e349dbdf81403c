/**
 * How the answers of several nodes become one (scatter reads, http/scatter.ts). Every node reads the
 * shared streams, so history answers agree but for a node's lag: keyset pages are joined, deduplicated
 * by id and cut to the page size again; an agent's `llm_history` (a node's boot seed keeps only each
 * seat's newest turns) is joined the same way under the read model's cap; arrival counts, one fold of
 * the fleet's records read at different moments, are the freshest any node has; per-node facts (tool
 * servers) are listed per node.
 */
import { historyCap, noArrivals, type SurfaceCounts } from '../projections/index.js';
import type { Merge, NodeAnswer } from './scatter.js';
import {
  compareInstants,
  formatInstant,
  isRecord,
  parseInstant,
  type Instant,
  type JsonObject as Json,
} from '../schema/index.js';

interface Keyed {
  readonly id: string;
  readonly timestamp: string;
}
const isKeyed = (row: unknown): row is Keyed & Json =>
  isRecord(row) && typeof row['id'] === 'string' && typeof row['timestamp'] === 'string';

interface Placed {
  readonly row: Keyed & Json;
  readonly at: Instant;
}

/**
 * Each row of one page with the instant it is ordered by (spec: timestamps compare as instants, whatever
 * their encoding). A row whose timestamp is not RFC 3339 was placed by its node at its stream time, which the
 * row does not carry: it keeps its place next to its newer (else older) neighbour in that page.
 */
function placed(rows: readonly (Keyed & Json)[]): Placed[] {
  const instants = rows.map((row) => parseInstant(row.timestamp));
  const out: Placed[] = [];
  let newer: Instant | null = null;
  for (let k = 0; k < rows.length; k++) {
    const own = instants[k] ?? null;
    const at: Instant = own ?? newer ?? instants.slice(k + 1).find((i) => i !== null) ?? { ms: 0, ns: 0 };
    if (own !== null) newer = own;
    out.push({ row: rows[k]!, at });
  }
  return out;
}

/** Newest first, ties by id descending: the order of every keyset page. */
const newestFirst = (a: Placed, b: Placed): number =>
  compareInstants(b.at, a.at) || (a.row.id < b.row.id ? 1 : a.row.id > b.row.id ? -1 : 0);

/**
 * Keyset pages (`{rows, exhausted, next}`, rows newest first with `id` and `timestamp`): the union, one
 * row per id, ordered by instant and cut to the longest page any node gave; exhausted only when every
 * node was and nothing was cut. A node alone answers its own page (its order and cursor are the
 * projection's). An answer of another shape (one turn's phases, oldest first) is the asker's own.
 */
export const mergePages: Merge = (answers) => {
  const mine = answers[0]!.answer;
  if (answers.length === 1) return mine;
  const pages = answers.map((a) => a.answer).filter(isRecord);
  if (
    !isRecord(mine) ||
    pages.some((p) => !Array.isArray(p['rows']) || !(p['rows'] as unknown[]).every(isKeyed))
  )
    return mine;
  if (mine['next'] === null && mine['exhausted'] === true && 'turn_id' in mine) return mine;
  const size = Math.max(...pages.map((p) => (p['rows'] as unknown[]).length));
  const byId = new Map<string, Placed>();
  for (const page of pages)
    for (const entry of placed(page['rows'] as (Keyed & Json)[]))
      if (!byId.has(entry.row.id)) byId.set(entry.row.id, entry);
  const all = [...byId.values()].sort(newestFirst);
  const kept = all.slice(0, size);
  const exhausted = all.length <= size && pages.every((p) => p['exhausted'] === true);
  const last = kept[kept.length - 1];
  return {
    ...mine,
    rows: kept.map((entry) => entry.row),
    exhausted,
    next:
      exhausted || last === undefined
        ? null
        : { before_time: formatInstant(last.at), before_id: last.row.id },
  };
};

/** What identifies an `llm_history` row: its turn, phase, iteration and launch, as the read model keeps them. */
const historyKey = (row: Json): string =>
  JSON.stringify([
    row['turn_id'] ?? null,
    row['phase'] ?? null,
    row['iteration'] ?? null,
    row['launch_id'] ?? null,
  ]);

interface HistoryEntry {
  readonly row: Json;
  /** Null when the stamp is unreadable: such a row sorts after every dated one, as the read model sorts it. */
  readonly at: Instant | null;
  /** First seen (the asker's rows first): the order of rows the instant does not tell apart. */
  readonly seen: number;
}

const newerEntry = (a: HistoryEntry, b: HistoryEntry): number =>
  a.at !== null && b.at !== null
    ? compareInstants(b.at, a.at) || a.seen - b.seen
    : a.at !== null
      ? -1
      : b.at !== null
        ? 1
        : a.seen - b.seen;

/**
 * `agent`: the seat's row as the asker's read model has it, with `llm_history` joined from every node
 * that answered: one row per (turn, phase, iteration, launch), the copy with the newest stamp when nodes
 * differ; newest first by the row's own end instant; at most `historyCap` rows, as the read model keeps
 * them. A node's boot seed binds each seat to its newest turns, so a node that restarted lacks rows its
 * peers still hold. A node alone answers its own row untouched.
 */
export const mergeAgent: Merge = (answers) => {
  const mine = answers[0]!.answer;
  if (answers.length === 1 || !isRecord(mine) || !Array.isArray(mine['llm_history'])) return mine;
  const byKey = new Map<string, HistoryEntry>();
  let seen = 0;
  for (const { answer } of answers) {
    if (!isRecord(answer) || !Array.isArray(answer['llm_history'])) continue;
    for (const row of answer['llm_history'] as unknown[]) {
      if (!isRecord(row)) continue;
      const key = historyKey(row);
      const at = typeof row['timestamp'] === 'string' ? parseInstant(row['timestamp']) : null;
      const held = byKey.get(key);
      if (held && (at === null || (held.at !== null && compareInstants(at, held.at) <= 0))) continue;
      byKey.set(key, { row, at, seen: held?.seen ?? seen++ });
    }
  }
  const rows = [...byKey.values()].sort(newerEntry).slice(0, historyCap);
  return { ...mine, llm_history: rows.map((entry) => entry.row) };
};

/** The asker's own answer (every node would give the same); coverage still names every node. */
export const mergeOwn: Merge = (answers) => answers[0]!.answer;

const later = (a: string | null, b: unknown): string | null =>
  typeof b === 'string' && (a === null || b > a) ? b : a;

/**
 * `integrations`: the surfaces as the asker sees them, each with the freshest arrival counts any node
 * answered. Every node folds the same arrival records, so the answers differ only by how far each has
 * folded (and each peer appends what it counted before it answers): counts only grow, so the highest
 * of each is the freshest, and adding them up would count every arrival once per node.
 */
export const mergeIntegrations: Merge = (answers) => {
  const mine = answers[0]!.answer;
  if (!isRecord(mine) || !Array.isArray(mine['surfaces'])) return mine;
  const totals = new Map<string, SurfaceCounts>();
  for (const { answer } of answers) {
    if (!isRecord(answer) || !Array.isArray(answer['surfaces'])) continue;
    for (const surface of answer['surfaces'] as unknown[]) {
      if (!isRecord(surface) || typeof surface['surface'] !== 'string' || !isRecord(surface['arrivals']))
        continue;
      const a = surface['arrivals'];
      const t = totals.get(surface['surface']) ?? noArrivals();
      t.accepted = Math.max(t.accepted, Number(a['accepted'] ?? 0));
      t.duplicates = Math.max(t.duplicates, Number(a['duplicates'] ?? 0));
      t.refused = Math.max(t.refused, Number(a['refused'] ?? 0));
      t.not_configured = Math.max(t.not_configured, Number(a['not_configured'] ?? 0));
      t.last_accepted_at = later(t.last_accepted_at, a['last_accepted_at']);
      t.last_refused_at = later(t.last_refused_at, a['last_refused_at']);
      totals.set(surface['surface'], t);
    }
  }
  return {
    ...mine,
    surfaces: (mine['surfaces'] as unknown[]).map((surface) =>
      isRecord(surface) && typeof surface['surface'] === 'string'
        ? { ...surface, arrivals: totals.get(surface['surface']) ?? surface['arrivals'] }
        : surface,
    ),
  };
};

/** `mcp_servers`: every node's own list, one entry per node (`{nodes: [{node, servers}]}`). */
export const mergeNodeLists: Merge = (answers: readonly NodeAnswer[]) => {
  const mine = answers[0]!.answer;
  if (!isRecord(mine)) return mine;
  const nodes = answers.flatMap(({ answer }) =>
    isRecord(answer) && Array.isArray(answer['nodes']) ? (answer['nodes'] as unknown[]) : [],
  );
  return { ...mine, nodes };
};

/** The questions a fleet answers together, and how. */
export const fleetMerges: ReadonlyMap<string, Merge> = new Map<string, Merge>([
  ['events', mergePages],
  ['turns', mergePages],
  ['phases', mergePages],
  ['event', mergeOwn],
  ['trace', mergeOwn],
  ['turn', mergeOwn],
  ['event_series', mergeOwn],
  ['agent', mergeAgent],
  ['integrations', mergeIntegrations],
  ['mcp_servers', mergeNodeLists],
]);
