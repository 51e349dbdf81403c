/**
 * The episode lifecycle (spec `learning.episode_lifecycle`; ops/turn-engine.md "Episode lifecycle"): which
 * of a seat's episodes stay, which merge, which go. Pure: the ledger of a seat's episodes, its limits and
 * the time in, the next ledger and what to record out.
 *
 * - An episode is *terminal* when its outcome is known (the review passed it, or the turn failed) and
 *   *non-terminal* otherwise (no review settled it): those cannot teach whether an approach worked, are
 *   never compacted, and go after `non_terminal_max_age_days`.
 * - Reflection *consolidates* an episode (its lesson, if any, is a memory row); a consolidated episode is
 *   left whole for `consolidated_grace_days` after that before it may be compacted.
 * - A terminal episode older than `compaction_min_age_days` joins the cluster of those with its outcome
 *   and the same tools called; a cluster of `compaction_min_cluster_size` or more becomes one compacted
 *   episode, kept until its newest member is `compacted_max_age_days` old.
 * - Past `max_raw_episodes_per_agent` raw episodes, the oldest go.
 * - A raw episode older than the event history (30 days) goes once compaction had its turn: its record is
 *   gone from the history, so no view could show it again.
 * Zero turns a rule off: no cap, no age limit, no grace, compaction from any age; a cluster size of zero
 * turns compaction off, and one counts as two (a single episode is not merged with anything).
 */
import { z } from 'zod';
import { Payloads, uuidv5 } from '../../schema/index.js';
import type { Episode } from './turn.episode.js';
import { clip } from '../text.js';

const DAY_MS = 24 * 3600 * 1000;

export interface LifecycleLimits {
  readonly max_raw_episodes_per_agent: number;
  readonly non_terminal_max_age_days: number;
  readonly consolidated_grace_days: number;
  readonly compaction_min_age_days: number;
  readonly compaction_min_cluster_size: number;
  readonly compacted_max_age_days: number;
}

/** What a learning seat keeps when the document names no limit (each field on its own). */
export const DEFAULT_LIFECYCLE: LifecycleLimits = {
  max_raw_episodes_per_agent: 200,
  non_terminal_max_age_days: 14,
  consolidated_grace_days: 7,
  compaction_min_age_days: 7,
  compaction_min_cluster_size: 3,
  compacted_max_age_days: 90,
};

/**
 * Whatever the limits say, a ledger holds at most this many of each, in at most this many bytes (it is one
 * KV value, under a JetStream message's 1 MiB); the view keeps 200 episodes a seat too. The raw ceiling is
 * schema's, which warns a document that asks for more.
 */
const RAW_HELD_MAX = Payloads.RAW_EPISODES_HELD_MAX;
export const COMPACTED_HELD_MAX = 100;
export const LEDGER_BYTES_MAX = 768 * 1024;
/** A compacted episode is recorded again before the event history (30 days) lets its record go. */
export const REFRESH_AFTER_MS = 20 * DAY_MS;

/** Namespace of compacted episode ids: uuidv5(namespace, the members' ids), so the same members make one id. */
const COMPACTED_NAMESPACE = '3b8e6f0c-1d2a-4e57-9c4b-7a1f2e9d0c63';

/** The list fields of an episode (the ask and the account stay in its event) and when it was consolidated. */
export const HeldEpisode = Payloads.EpisodeRecorded.omit({ ask: true, account: true }).extend({
  consolidated_at: z.string().nullable(),
});
export type HeldEpisode = z.infer<typeof HeldEpisode>;

export const HeldCompacted = z.object({
  episode: Payloads.EpisodeRecorded,
  members: z.array(z.string()),
  cluster: z.string(),
  /** When it was last recorded (the event history keeps a record 30 days). */
  recorded_at: z.string(),
});
export type HeldCompacted = z.infer<typeof HeldCompacted>;

/** A seat's episodes as the lifecycle sees them (one KV value per seat). */
export const Ledger = z.object({ raw: z.array(HeldEpisode), compacted: z.array(HeldCompacted) });
export type Ledger = z.infer<typeof Ledger>;

export const emptyLedger = (): Ledger => ({ raw: [], compacted: [] });

const ms = (iso: string): number => {
  const at = Date.parse(iso);
  return Number.isNaN(at) ? 0 : at;
};
const byEnded = (a: { ended_at: string }, b: { ended_at: string }): number => ms(a.ended_at) - ms(b.ended_at);

export const isTerminal = (e: Pick<Episode, 'review_outcome'>): boolean => e.review_outcome !== null;

/** The ledger with `episode` held (a re-recorded one, e.g. with reflection's summaries, replaces it). */
export function noteRecorded(ledger: Ledger, episode: Episode): Ledger {
  if (ledger.compacted.some((c) => c.members.includes(episode.id))) return ledger;
  const { ask: _ask, account: _account, ...listed } = episode;
  const before = ledger.raw.find((e) => e.id === episode.id);
  const held = { ...listed, consolidated_at: before?.consolidated_at ?? null };
  return { ...ledger, raw: [...ledger.raw.filter((e) => e.id !== episode.id), held].sort(byEnded) };
}

/**
 * The ledger with the episode `id` consolidated at `at`, with reflection's summaries where it rewrote them;
 * unchanged when the episode is no longer held raw (compacted or gone meanwhile).
 */
export function noteConsolidated(
  ledger: Ledger,
  id: string,
  at: string,
  summarized: Episode | null = null,
): Ledger {
  if (!ledger.raw.some((e) => e.id === id)) return ledger;
  const summaries = summarized ? { task_summary: summarized.task_summary, plan_summary: summarized.plan_summary } : {}; // prettier-ignore
  return { ...ledger, raw: ledger.raw.map((e) => (e.id === id ? { ...e, ...summaries, consolidated_at: at } : e)) }; // prettier-ignore
}

/** What a cluster's members share: the outcome and the distinct tools called, in name order. */
export function clusterOf(e: Pick<Episode, 'review_outcome' | 'tool_sequence'>): string {
  const outcome = e.review_outcome === 'failed' ? 'failed' : 'passed';
  const tools = [...new Set(e.tool_sequence)].sort();
  return `${outcome}:${tools.length > 0 ? tools.join(',') : '(no tools)'}`;
}

/** The most frequent value (ties: the one seen last, i.e. the newest member's). */
function mostCommon<T>(values: readonly T[], keyOf: (v: T) => string): T {
  const counts = new Map<string, number>();
  let best = values[0] as T;
  let bestCount = 0;
  for (const v of values) {
    const n = (counts.get(keyOf(v)) ?? 0) + 1;
    counts.set(keyOf(v), n);
    if (n >= bestCount) [best, bestCount] = [v, n];
  }
  return best;
}

/** One episode standing for the members (oldest first), under an id their ids decide. */
export function compactedEpisode(members: readonly HeldEpisode[], cluster: string): Payloads.EpisodeRecorded {
  const newest = members.at(-1)!;
  const ids = members.map((m) => m.id);
  const outcomes = new Map<string, number>();
  for (const m of members) outcomes.set(m.review_outcome ?? 'none', (outcomes.get(m.review_outcome ?? 'none') ?? 0) + 1); // prettier-ignore
  const tally = [...outcomes].map(([outcome, n]) => `${n} ${outcome.replaceAll('_', ' ')}`).join(', ');
  const summaries = [...new Set(members.map((m) => m.task_summary))];
  return {
    id: uuidv5(COMPACTED_NAMESPACE, [...ids].sort().join('\n')),
    task_summary: clip(`${members.length} similar tasks: ${summaries.slice(-5).reverse().join('; ')}`, 200),
    plan_summary: newest.plan_summary,
    tool_sequence: [...mostCommon(members, (m) => m.tool_sequence.join('\n')).tool_sequence],
    skills_used: [...new Set(members.flatMap((m) => m.skills_used))],
    review_outcome: mostCommon(members, (m) => m.review_outcome ?? 'none').review_outcome,
    started_at: members.reduce((a, m) => (ms(m.started_at) < ms(a) ? m.started_at : a), newest.started_at),
    ended_at: newest.ended_at,
    duration_ms: members.reduce((sum, m) => sum + m.duration_ms, 0),
    task_id: null,
    turn_id: null,
    ask: clip(
      members
        .map((m) => `${m.ended_at}  ${m.task_summary}`)
        .reverse()
        .join('\n'),
      1_000,
    ),
    account: clip(`Compacted from ${members.length} episodes (${cluster}): ${tally}.`, 1_000),
  };
}

export interface Pruned {
  readonly ids: string[];
  readonly reason: (typeof Payloads.EpisodePruneReason)[keyof typeof Payloads.EpisodePruneReason];
}

export interface LifecyclePlan {
  readonly ledger: Ledger;
  /** Newly compacted, and compacted ones recorded again before the history lets them go. */
  readonly compacted: readonly HeldCompacted[];
  readonly pruned: readonly Pruned[];
}

/**
 * The lifecycle's pass over a seat's ledger at `nowMs`: compaction first (an episode about to age out is
 * merged rather than lost), then the age limits, then the caps. `historyMs`: how long the event history
 * keeps a record.
 */
export function planLifecycle(
  ledger: Ledger,
  limits: LifecycleLimits,
  nowMs: number,
  historyMs: number,
): LifecyclePlan {
  const pruned = new Map<Pruned['reason'], string[]>();
  const prune = (ids: string[], reason: Pruned['reason']): void => {
    if (ids.length > 0) pruned.set(reason, [...(pruned.get(reason) ?? []), ...ids]);
  };
  const days = (n: number): number => n * DAY_MS;
  const olderThan = (iso: string, ageMs: number): boolean => nowMs - ms(iso) > ageMs;
  let raw = [...ledger.raw].sort(byEnded);
  let compacted = [...ledger.compacted];
  const fresh: HeldCompacted[] = [];

  const clusterSize = limits.compaction_min_cluster_size === 0 ? 0 : Math.max(2, limits.compaction_min_cluster_size); // prettier-ignore
  if (clusterSize > 0) {
    const ripe = (e: HeldEpisode): boolean =>
      isTerminal(e) &&
      nowMs - ms(e.ended_at) >= days(limits.compaction_min_age_days) &&
      (e.consolidated_at === null || nowMs - ms(e.consolidated_at) >= days(limits.consolidated_grace_days));
    const clusters = new Map<string, HeldEpisode[]>();
    for (const e of raw.filter(ripe)) clusters.set(clusterOf(e), [...(clusters.get(clusterOf(e)) ?? []), e]);
    const merged = new Set<string>();
    for (const [cluster, members] of clusters) {
      if (members.length < clusterSize) continue;
      const held = { episode: compactedEpisode(members, cluster), members: members.map((m) => m.id), cluster, recorded_at: new Date(nowMs).toISOString() }; // prettier-ignore
      fresh.push(held);
      for (const m of members) merged.add(m.id);
    }
    raw = raw.filter((e) => !merged.has(e.id));
    compacted = [...compacted, ...fresh];
  }

  const expired = (e: HeldEpisode): boolean => historyMs > 0 && olderThan(e.ended_at, historyMs);
  prune(
    raw.filter(expired).map((e) => e.id),
    'expired',
  );
  raw = raw.filter((e) => !expired(e));
  if (limits.non_terminal_max_age_days > 0) {
    const stale = (e: HeldEpisode): boolean => !isTerminal(e) && olderThan(e.ended_at, days(limits.non_terminal_max_age_days)); // prettier-ignore
    prune(
      raw.filter(stale).map((e) => e.id),
      'non_terminal_age',
    );
    raw = raw.filter((e) => !stale(e));
  }
  if (limits.compacted_max_age_days > 0) {
    const old = (c: HeldCompacted): boolean =>
      olderThan(c.episode.ended_at, days(limits.compacted_max_age_days));
    prune(
      compacted.filter(old).map((c) => c.episode.id),
      'compacted_age',
    );
    compacted = compacted.filter((c) => !old(c));
  }

  const rawCap = limits.max_raw_episodes_per_agent > 0 ? Math.min(limits.max_raw_episodes_per_agent, RAW_HELD_MAX) : RAW_HELD_MAX; // prettier-ignore
  prune(
    raw.slice(0, Math.max(0, raw.length - rawCap)).map((e) => e.id),
    'cap',
  );
  raw = raw.slice(Math.max(0, raw.length - rawCap));
  compacted.sort((a, b) => byEnded(a.episode, b.episode));
  prune(compacted.slice(0, Math.max(0, compacted.length - COMPACTED_HELD_MAX)).map((c) => c.episode.id), 'cap'); // prettier-ignore
  compacted = compacted.slice(Math.max(0, compacted.length - COMPACTED_HELD_MAX));

  // The oldest go first, raw before compacted, until the ledger fits its value.
  const bytes = (v: unknown): number => Buffer.byteLength(JSON.stringify(v)) + 1;
  let size = bytes({ raw: [], compacted: [] }) + raw.reduce((n, e) => n + bytes(e), 0) + compacted.reduce((n, c) => n + bytes(c), 0); // prettier-ignore
  while (size > LEDGER_BYTES_MAX && raw.length + compacted.length > 0) {
    if (raw.length > 0) {
      const e = raw.shift()!;
      size -= bytes(e);
      prune([e.id], 'cap');
    } else {
      const c = compacted.shift()!;
      size -= bytes(c);
      prune([c.episode.id], 'cap');
    }
  }

  const stamp = new Date(nowMs).toISOString();
  const refreshed = compacted
    .filter((c) => !fresh.includes(c) && nowMs - ms(c.recorded_at) >= REFRESH_AFTER_MS)
    .map((c) => ({ ...c, recorded_at: stamp }));
  compacted = compacted.map((c) => refreshed.find((r) => r.episode.id === c.episode.id) ?? c);
  return {
    ledger: { raw, compacted },
    compacted: [...fresh.filter((f) => compacted.includes(f)), ...refreshed],
    pruned: [...pruned].map(([reason, ids]) => ({ ids, reason })),
  };
}

/** The limits in force: the document's `learning.episode_lifecycle`, each field absent taking its default. */
export function lifecycleLimits(given: Partial<LifecycleLimits> | undefined): LifecycleLimits {
  const limits: { -readonly [K in keyof LifecycleLimits]: number } = { ...DEFAULT_LIFECYCLE };
  for (const key of Object.keys(limits) as (keyof LifecycleLimits)[])
    if (given?.[key] !== undefined) limits[key] = given[key];
  return limits;
}
