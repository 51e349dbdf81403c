/** Payloads of the learning subsystem's records (spec "Memory view"); the seat is the record's `agent_id`. */
import { z } from 'zod';
import { count, Instant } from './common.js';

/** An episode: list fields plus the complete ask and account (served only by the episode route). */
export const EpisodeRecorded = z.object({
  id: z.string().min(1),
  task_summary: z.string(),
  plan_summary: z.string(),
  tool_sequence: z.array(z.string()),
  skills_used: z.array(z.string()),
  review_outcome: z.string().nullable(),
  started_at: Instant,
  ended_at: Instant,
  duration_ms: count,
  task_id: z.string().nullable(),
  turn_id: z.string().nullable(),
  /** The full task as the seat received it. */
  ask: z.string(),
  /** The full account of what the seat did. */
  account: z.string(),
});
export type EpisodeRecorded = z.infer<typeof EpisodeRecorded>;

/**
 * Raw episodes a seat's ledger holds whatever `max_raw_episodes_per_agent` says (the ledger is one KV value,
 * under a JetStream message's 1 MiB); a document asking for more is warned at its write.
 */
export const RAW_EPISODES_HELD_MAX = 200;

/** Why episodes left a seat's memory (ops/turn-engine.md "Episode lifecycle"). */
export const EpisodePruneReason = {
  /** Past `max_raw_episodes_per_agent`, oldest first. */
  Cap: 'cap',
  /** An episode without an outcome past `non_terminal_max_age_days`. */
  NonTerminalAge: 'non_terminal_age',
  /** A compacted episode past `compacted_max_age_days`. */
  CompactedAge: 'compacted_age',
  /** Older than the event history keeps its record (and not compacted). */
  Expired: 'expired',
} as const;

/** Reflection looked back on an episode (its lesson, if any, is a long personal memory row). */
export const EpisodeConsolidated = z.object({
  id: z.string().min(1),
  consolidated_at: Instant,
  /** The memory row that holds the lesson; null when there was nothing new to learn. */
  lesson_id: z.string().nullable(),
});

/** Similar old episodes of a seat merged into one; the members leave the memory view. */
export const EpisodesCompacted = z.object({
  episode: EpisodeRecorded,
  members: z.array(z.string().min(1)).min(1),
  /** What the members share: their outcome and the tools they called. */
  cluster: z.string(),
});

/** Episodes that left a seat's memory view. */
export const EpisodesPruned = z.object({
  ids: z.array(z.string().min(1)).min(1),
  reason: z.enum(Object.values(EpisodePruneReason) as [string, ...string[]]),
});

export const MemoryTerm = { Long: 'long', Short: 'short' } as const;

/**
 * A personal memory was kept (published by the builtin `memory_remember` tool). The content stays in the
 * seat's memory store; the event carries its size only.
 */
export const MemoryRemembered = z.looseObject({
  memory_id: z.string().min(1),
  kind: z.enum([MemoryTerm.Long, MemoryTerm.Short]),
  /** Null for a long memory; a short one past it reads `expired: true`. */
  ttl_until: Instant.nullable(),
  content_chars: count,
  turn_id: z.string().nullable(),
});

export const MemoryForgotten = z.looseObject({ memory_id: z.string().min(1), reason: z.string().optional() });

export const CounterpartyProfileUpdated = z.object({
  subject_label: z.string(),
  subject_handle: z.string().nullable(),
  subject_external_id: z.string().nullable(),
  subject_platform: z.string(),
  subject_name: z.string().nullable(),
  traits: z.record(z.string(), z.unknown()),
  interaction_count: count,
  first_seen_at: Instant,
  last_updated_at: Instant,
  last_corroborated_at: Instant.nullable(),
});

export const SkillSynthesized = z.object({
  id: z.string().min(1),
  name: z.string(),
  description: z.string(),
  content: z.string(),
  tool_sequence: z.array(z.string()),
  version: z.number().int().positive(),
  created_at: Instant,
  updated_at: Instant,
});

/** A seat's learned skill promoted to every seat (actors/skills/skills.promotion.ts). */
export const SkillPromoted = z.object({
  id: z.string().min(1),
  name: z.string(),
  version: count,
  /** The handle of the seat that learned it. */
  from: z.string(),
  /** Turns reviewed as done that read it, this one included. */
  uses: count,
});
