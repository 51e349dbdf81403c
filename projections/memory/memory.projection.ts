/**
 * The memory read model (spec "Memory view"): per seat its episodes, personal memories, counterparty
 * profiles and synthesized skills, from the learning subsystem's events. Each section is held and
 * answered separately, so one that cannot be read degrades to an empty list without the others.
 */
import { Payloads, type EventRecord } from '../../schema/index.js';
import type { z } from 'zod';
import { compareInstants, instantMs, isNotOlder } from '../time/instants.js';

type Episode = z.infer<typeof Payloads.EpisodeRecorded>;
type Memory = z.infer<typeof Payloads.MemoryRemembered>;

type Profile = z.infer<typeof Payloads.CounterpartyProfileUpdated>;
type Skill = z.infer<typeof Payloads.SkillSynthesized>;

export const memoryEventTypes = [
  'episode_recorded',
  'episodes_compacted',
  'episodes_pruned',
  'memory_remembered',
  'memory_forgotten',
  'counterparty_profile_updated',
  'skill_synthesized',
] as const;

/** Episodes kept per seat (the view shows 50; a few more let a re-recorded one replace in place). */
const episodesKept = 200;
/**
 * Other entries kept per seat, newest first: the memory store holds at most 500 rows an agent and evicts
 * without an event, so the view needs no more; tombstones, profiles and skills are bounded alike so a
 * long-running node's memory does not grow with every remember.
 */
const memoriesKept = 500;
const tombstonesKept = 1_000;
/** Episodes the lifecycle compacted or pruned, so a later record of one (a summary rewritten) stays out. */
const episodesGoneKept = 1_000;
const profilesKept = 500;
const skillsKept = 500;

/** Drops the oldest entries (an unparseable instant counts as oldest) until `map` holds at most `cap`. */
function keepNewest<K, V>(map: Map<K, V>, cap: number, msOf: (value: V) => number | null): void {
  while (map.size > cap) {
    let oldest: K | undefined;
    let oldestMs = Infinity;
    for (const [key, value] of map) {
      const ms = msOf(value) ?? -Infinity;
      if (ms < oldestMs || oldest === undefined) {
        oldest = key;
        oldestMs = ms;
      }
    }
    map.delete(oldest as K);
  }
}

export interface SeatMemory {
  episodes: Map<string, Episode>;
  /** The instant of the event behind each held episode (rule 3: an older record never replaces it). */
  episodeAt: Map<string, number | null>;
  /** Episodes compacted or pruned, with when (bounded, oldest dropped). */
  episodesGone: Map<string, number | null>;
  memories: Map<string, { memory: Memory; ms: number | null }>;
  /** Tombstones: a forget newer than a remember wins, whatever order they arrive in. */
  forgotten: Map<string, number | null>;
  profiles: Map<string, { profile: Profile; ms: number | null }>;
  skills: Map<string, Skill>;
}

export interface MemoryState {
  readonly seats: Map<string, SeatMemory>;
}

export const emptyMemoryState = (): MemoryState => ({ seats: new Map() });

function seatOf(state: MemoryState, handle: string): SeatMemory {
  let seat = state.seats.get(handle);
  if (!seat) {
    seat = {
      episodes: new Map(),
      episodeAt: new Map(),
      episodesGone: new Map(),
      memories: new Map(),
      forgotten: new Map(),
      profiles: new Map(),
      skills: new Map(),
    };
    state.seats.set(handle, seat);
  }
  return seat;
}

function keepEpisode(seat: SeatMemory, episode: Episode, ms: number | null): void {
  if (seat.episodesGone.has(episode.id)) return;
  // An episode is recorded again (reflection adds its summary): a record older than the one held, arriving
  // late, does not replace it.
  if (seat.episodes.has(episode.id) && !isNotOlder(ms, seat.episodeAt.get(episode.id))) return;
  seat.episodes.set(episode.id, episode);
  seat.episodeAt.set(episode.id, ms);
  if (seat.episodes.size > episodesKept) {
    const oldest = [...seat.episodes.values()].sort((a, b) => compareInstants(a.ended_at, b.ended_at))[0];
    if (oldest) {
      seat.episodes.delete(oldest.id);
      seat.episodeAt.delete(oldest.id);
    }
  }
}

function dropEpisodes(seat: SeatMemory, ids: readonly string[], ms: number | null): void {
  for (const id of ids) {
    seat.episodes.delete(id);
    seat.episodeAt.delete(id);
    seat.episodesGone.set(id, ms);
  }
  keepNewest(seat.episodesGone, episodesGoneKept, (at) => at);
}

export function applyMemoryEvent(state: MemoryState, e: EventRecord): MemoryState {
  if (!e.agent_id) return state;
  const ms = instantMs(e.timestamp);
  switch (e.type) {
    case 'episode_recorded': {
      const p = Payloads.EpisodeRecorded.safeParse(e.payload);
      if (!p.success) return state;
      keepEpisode(seatOf(state, e.agent_id), p.data, ms);
      return state;
    }
    case 'episodes_compacted': {
      const p = Payloads.EpisodesCompacted.safeParse(e.payload);
      if (!p.success) return state;
      const seat = seatOf(state, e.agent_id);
      dropEpisodes(seat, p.data.members, ms);
      keepEpisode(seat, p.data.episode, ms);
      return state;
    }
    case 'episodes_pruned': {
      const p = Payloads.EpisodesPruned.safeParse(e.payload);
      if (p.success) dropEpisodes(seatOf(state, e.agent_id), p.data.ids, ms);
      return state;
    }
    case 'memory_remembered': {
      const p = Payloads.MemoryRemembered.safeParse(e.payload);
      if (!p.success) return state;
      const seat = seatOf(state, e.agent_id);
      const id = p.data.memory_id;
      const current = seat.memories.get(id);
      if (!isNotOlder(ms, current?.ms) || !isNotOlder(ms, seat.forgotten.get(id))) return state;
      seat.forgotten.delete(id);
      seat.memories.set(id, { memory: p.data, ms });
      keepNewest(seat.memories, memoriesKept, (m) => m.ms);
      return state;
    }
    case 'memory_forgotten': {
      const p = Payloads.MemoryForgotten.safeParse(e.payload);
      if (!p.success) return state;
      const seat = seatOf(state, e.agent_id);
      const id = p.data.memory_id;
      const current = seat.memories.get(id);
      if (current && !isNotOlder(ms, current.ms)) return state;
      seat.memories.delete(id);
      seat.forgotten.set(id, ms);
      keepNewest(seat.forgotten, tombstonesKept, (at) => at);
      return state;
    }
    case 'counterparty_profile_updated': {
      const p = Payloads.CounterpartyProfileUpdated.safeParse(e.payload);
      if (!p.success) return state;
      const seat = seatOf(state, e.agent_id);
      const key = profileKey(p.data);
      const at = instantMs(p.data.last_updated_at);
      if (!isNotOlder(at, seat.profiles.get(key)?.ms)) return state;
      seat.profiles.set(key, { profile: p.data, ms: at });
      keepNewest(seat.profiles, profilesKept, (v) => v.ms);
      return state;
    }
    case 'skill_synthesized': {
      const p = Payloads.SkillSynthesized.safeParse(e.payload);
      if (!p.success) return state;
      const seat = seatOf(state, e.agent_id);
      const current = seat.skills.get(p.data.id);
      if (current && current.version > p.data.version) return state;
      seat.skills.set(p.data.id, p.data);
      keepNewest(seat.skills, skillsKept, (v) => instantMs(v.updated_at));
      return state;
    }
    default:
      return state;
  }
}

/** One profile per platform and person (the vendor's id where it gives one). */
const profileKey = (p: Profile): string =>
  `${p.subject_platform}\u0000${p.subject_external_id ?? p.subject_handle ?? p.subject_label}`;

/**
 * The seat's profiles: those its events announced, joined with the ones its profile store keeps (which
 * outlive the event history); of two copies of one person's profile the newer `last_updated_at` wins.
 */
function profilesOf(mine: SeatMemory | undefined, stored: readonly unknown[] | null): Profile[] {
  const byKey = new Map<string, { profile: Profile; ms: number | null }>(mine?.profiles ?? []);
  for (const raw of stored ?? []) {
    const p = Payloads.CounterpartyProfileUpdated.safeParse(raw);
    if (!p.success) continue;
    const key = profileKey(p.data);
    const ms = instantMs(p.data.last_updated_at);
    if (isNotOlder(ms, byKey.get(key)?.ms)) byKey.set(key, { profile: p.data, ms });
  }
  return [...byKey.values()].map((p) => p.profile).sort(byDesc((p) => p.last_updated_at));
}

/**
 * The seat's learned skills: those its events announced, joined with the ones its skill store keeps (which
 * outlive the event history); of two copies of one skill the higher version wins.
 */
function skillsOf(mine: SeatMemory | undefined, stored: readonly unknown[] | null): Skill[] {
  const byId = new Map<string, Skill>(mine?.skills ?? []);
  for (const raw of stored ?? []) {
    const p = Payloads.SkillSynthesized.safeParse(raw);
    if (!p.success) continue;
    const held = byId.get(p.data.id);
    if (!held || held.version < p.data.version) byId.set(p.data.id, p.data);
  }
  return [...byId.values()].sort(byDesc((s) => s.updated_at));
}

/** Runs one section; a section that throws reads as an empty list (the others still answer). */
function section<T>(read: () => T[]): T[] {
  try {
    return read();
  } catch {
    return [];
  }
}

const byDesc =
  <T>(at: (x: T) => string) =>
  (a: T, b: T): number =>
    compareInstants(at(b), at(a));

export const episodesShown = 50;

/** The memory view of one seat (identity fields come from the company model). */
/** A row of the seat's personal memory store (structurally the turn engine's `MemoryRow`). */
export interface StoredMemory {
  readonly id: string;
  readonly kind: 'long' | 'short';
  readonly content: string;
  readonly metadata: Record<string, unknown>;
  readonly ttl_until: string | null;
}

/** The seat's personal memory store as the view reads it (the turn engine's `PersonalMemory` fits). */
export interface MemoryStoreReader {
  recall(
    agentId: string,
    query: { query: null; kind: null; limit: number; include_expired: boolean; now: Date },
  ): Promise<readonly StoredMemory[]>;
}

/** Rows read from the store per view (newest first as the store ranks a query-less recall). */
export const memoriesShown = 200;

/**
 * The memory view of one seat (identity fields come from the company model). `stored`: the rows the
 * memory store answered, or null when there is no store or it failed (then the events' rows are shown).
 */
export function memoryView(
  state: MemoryState,
  seat: { handle: string; role: string; agent_id: string | null },
  nowMs: number,
  stored: readonly StoredMemory[] | null = null,
  storedProfiles: readonly unknown[] | null = null,
  storedSkills: readonly unknown[] | null = null,
) {
  const mine = state.seats.get(seat.handle);
  // The store holds the content; without one (or when it fails) the rows come from the events, content ''.
  const rows: readonly StoredMemory[] =
    stored ??
    [...(mine?.memories.values() ?? [])]
      .sort((a, b) => (b.ms ?? -Infinity) - (a.ms ?? -Infinity))
      .map(({ memory }) => ({
        id: memory.memory_id,
        kind: memory.kind,
        content: '',
        metadata: { content_chars: memory.content_chars, turn_id: memory.turn_id },
        ttl_until: memory.ttl_until,
      }));
  const memories = (term: 'long' | 'short') =>
    section(() =>
      rows
        .filter((m) => m.kind === term && !(mine?.forgotten.has(m.id) ?? false))
        .map((memory) => {
          const row = {
            id: memory.id,
            content: memory.content,
            metadata: memory.metadata,
            ttl_until: memory.ttl_until,
          };
          if (term === 'long') return row;
          const until = instantMs(memory.ttl_until);
          return { ...row, expired: until !== null && until <= nowMs };
        }),
    );
  return {
    agent_id: seat.agent_id,
    handle: seat.handle,
    role: seat.role,
    runtime_id: seat.agent_id,
    personal_memories: { long: memories('long'), short: memories('short') },
    episodes: section(() =>
      [...(mine?.episodes.values() ?? [])]
        .sort(byDesc((e) => e.ended_at))
        .slice(0, episodesShown)
        .map(({ ask: _a, account: _c, ...list }) => list),
    ),
    counterparty_profiles: section(() => profilesOf(mine, storedProfiles)),
    synthesized_skills: section(() => skillsOf(mine, storedSkills)),
  };
}

/** One episode with its complete ask and account; null when the seat has no such episode. */
export function memoryEpisode(state: MemoryState, handle: string, episodeId: string): Episode | null {
  return state.seats.get(handle)?.episodes.get(episodeId) ?? null;
}
