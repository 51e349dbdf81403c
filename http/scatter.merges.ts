/**
 * How the answers of several nodes become one (scatter reads, http/scatter.ts). Every node reads the
 * shared streams, so history answers agree but for a node's lag: keyset pages are joined, deduplicated
 * by id and cut to the page size again; arrival counts, one fold of the fleet's records read at
 * different moments, are the freshest any node has; per-node facts (tool servers) are listed per node.
 */
import type { Merge, NodeAnswer } from './scatter.js';
import { isRecord, type JsonObject as Json } from '../schema/index.js';

interface Keyed {
  readonly id: string;
  readonly timestamp: string;
}
const isKeyed = (row: unknown): row is Keyed & Json =>
  isRecord(row) && typeof row['id'] === 'string' && typeof row['timestamp'] === 'string';

/** Newest first, ties by id descending: the order of every keyset page. */
const newestFirst = (a: Keyed, b: Keyed): number =>
  a.timestamp === b.timestamp ? (a.id < b.id ? 1 : a.id > b.id ? -1 : 0) : a.timestamp < b.timestamp ? 1 : -1;

/**
 * Keyset pages (`{rows, exhausted, next}`, rows newest first with `id` and `timestamp`): the union, one
 * row per id, cut to the longest page any node gave; exhausted only when every node was and nothing was
 * cut. An answer of another shape (one turn's phases, oldest first) is the asker's own.
 */
export const mergePages: Merge = (answers) => {
  const mine = answers[0]!.answer;
  const pages = answers.map((a) => a.answer).filter(isRecord);
  if (
    !isRecord(mine) ||
    pages.some((p) => !Array.isArray(p['rows']) || !(p['rows'] as unknown[]).every(isKeyed))
  )
    return mine;
  if (mine['next'] === null && mine['exhausted'] === true && 'turn_id' in mine) return mine;
  const size = Math.max(...pages.map((p) => (p['rows'] as unknown[]).length));
  const byId = new Map<string, Keyed & Json>();
  for (const page of pages)
    for (const row of page['rows'] as (Keyed & Json)[]) if (!byId.has(row.id)) byId.set(row.id, row);
  const all = [...byId.values()].sort(newestFirst);
  const rows = all.slice(0, size);
  const exhausted = all.length <= size && pages.every((p) => p['exhausted'] === true);
  const last = rows[rows.length - 1];
  return {
    ...mine,
    rows,
    exhausted,
    next: exhausted || last === undefined ? null : { before_time: last.timestamp, before_id: last.id },
  };
};

/** The asker's own answer (every node would give the same); coverage still names every node. */
export const mergeOwn: Merge = (answers) => answers[0]!.answer;

interface Counts {
  accepted: number;
  duplicates: number;
  refused: number;
  not_configured: number;
  last_accepted_at: string | null;
  last_refused_at: string | null;
}
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
  const totals = new Map<string, Counts>();
  for (const { answer } of answers) {
    if (!isRecord(answer) || !Array.isArray(answer['surfaces'])) continue;
    for (const surface of answer['surfaces'] as unknown[]) {
      if (!isRecord(surface) || typeof surface['surface'] !== 'string' || !isRecord(surface['arrivals']))
        continue;
      const a = surface['arrivals'];
      const t = totals.get(surface['surface']) ?? {
        accepted: 0,
        duplicates: 0,
        refused: 0,
        not_configured: 0,
        last_accepted_at: null,
        last_refused_at: null,
      };
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
  ['integrations', mergeIntegrations],
  ['mcp_servers', mergeNodeLists],
]);
