/** What a seat host is started with, and what it offers the seats runtime and placement. */
import type { Logger } from 'pino';
import type { Bus, Kv } from '../../bus/index.js';
import type { NeedsClosedCause, SeatNeed } from '../../schema/index.js';
import type { Fence } from '../lease/index.js';
import type { NeedRecorded, PersonalMemory } from '../toolservers/index.js';
import type { LifecycleLimits } from './episode.lifecycle.js';
import type { Paused, SeatEvent } from './seat.machine.js';
import type { TurnLimits } from './seat.limits.js';
import type { CompanyProfile, SeatProfile } from './seat.profile.js';
import type { LocalProgress } from './seat.events.js';
import type { TurnDeps } from './turn.deps.js';

/** What closes open needs: which ids (those not open are ignored), why, by whom, once per `key`. */
export interface CloseNeeds {
  readonly cause: NeedsClosedCause;
  readonly ids: readonly string[];
  readonly by: string;
  readonly key: string;
  readonly turn_id: string | null;
  readonly wake_id?: string | null;
}

export interface SeatHostOptions {
  readonly bus: Bus;
  readonly coord: Kv;
  /** `svc_turns_done`: the record of each completed turn, read before running a wake. */
  readonly turnsDone: Kv;
  readonly nodeId: string;
  readonly logger: Logger;
  readonly deps: Omit<TurnDeps, 'events'>;
  /** The company as last applied (charter, caps); read at the start of each turn. */
  readonly company: () => CompanyProfile;
  readonly limits: TurnLimits;
  readonly profile: SeatProfile;
  /** How long a paused seat leaves a wake before it is offered again. */
  readonly pausedRetryMs?: number;
  /** Whether the seat learns: its completed turns record `episode_recorded`. Default: never. */
  readonly learning?: (handle: string) => boolean;
  /** Whether the seat's episodes are synthesised into skills (and refined), with the bucket they go to. */
  readonly synthesis?: SeatSynthesis;
  /** Whether the seat keeps profiles of the people who wake it, with the bucket they go to. */
  readonly counterparty?: SeatCounterparty;
  /** Whether the seat reflects on its episodes, with the personal memory its lessons go to. */
  readonly reflection?: SeatReflection;
  /** The episode lifecycle of a learning seat, with the bucket its ledger goes to. */
  readonly episodes?: SeatEpisodes;
  /** How soon a wake held by a holder that died goes to the next one; default 30 s (the lease ttl). */
  readonly inboxAckWaitMs?: number;
  /** The seat lease's fence, checked before every effect; default none (one process owns the seat). */
  readonly fence?: Fence;
  /** The lease epoch the seat acts under, carried by every record it writes (`svc-lease-epoch`). */
  readonly leaseEpoch?: number;
  /** This node's read models, handed the seat's live-view frames as they go out; default none. */
  readonly localProgress?: LocalProgress;
}

export interface SeatHost {
  readonly handle: string;
  /** Machine state, for tests and logs: `idle`, `working.plan`, `stopped.paused`, ... */
  state(): string;
  /** A changed definition: the next turn runs on it. */
  update(profile: SeatProfile): void;
  send(event: SeatEvent): void;
  /**
   * Records a question the seat now waits on (`ask_human`): appended to the seat's log, then the
   * machine's; the seat's next completion carries it. Refused (`recorded: false`, nothing written) when
   * the seat already waits on `NEEDS_KEPT_PER_SEAT` open questions.
   */
  recordNeed(need: SeatNeed): Promise<NeedRecorded>;
  /**
   * Closes open needs (answered, withdrawn, cleared): appended to the seat's log, then the machine's, then
   * published as an event naming what still waits. Resolves with the ids it closed (none: nothing written).
   */
  closeNeeds(close: CloseNeeds): Promise<string[]>;
  /** The pause in force, as the machine holds it (null when the seat is not paused). */
  paused(): Paused | null;
  /** The questions the seat waits on, as its machine holds them. */
  needs(): readonly SeatNeed[];
  /** Starts consuming the inbox (once the apply that spawned the seat has finished). */
  open(): Promise<void>;
  /**
   * Stops consuming; a running turn is cut (for a shutdown) and its wake left for redelivery, to
   * resume from its journal. `fenced`: the lease is lost, so not even a negative acknowledgement goes
   * out (the wake is the new holder's now).
   */
  stop(opts?: { fenced?: boolean }): Promise<void>;
  /**
   * Takes no new wake, lets the running turn finish for up to `graceMs`, then stops (cutting the turn
   * if it still runs). Resolves once stopped.
   */
  drain(graceMs: number): Promise<void>;
}

/** Skill synthesis for a seat (skill.synthesis.ts): null when off for it. */
export interface SeatSynthesis {
  settings(handle: string): { readonly refine: boolean; readonly scheduled: boolean } | null;
  /** Whether the seat's proven learned skills are promoted to every seat (skills.promotion.ts). */
  promotes(handle: string): boolean;
  /** The `svc_tool_skills` bucket, where a seat's learned skills are kept. */
  readonly skills: Kv;
}

/** Counterparty profiles for a seat (counterparty.ts). */
export interface SeatCounterparty {
  enabled(handle: string): boolean;
  /** The `svc_counterparty` bucket, where a seat's profiles are kept. */
  readonly profiles: Kv;
}

/** The episode lifecycle of a seat (episode.lifecycle.ts). */
export interface SeatEpisodes {
  /** The document's `learning.episode_lifecycle` (fields absent take their defaults); null when the seat does not learn. */
  limits(handle: string): Partial<LifecycleLimits> | null;
  /** The `svc_episodes` bucket, where each seat's ledger is kept. */
  readonly ledger: Kv;
  /** How long the event history keeps a record; default 30 days. */
  readonly historyMs?: number;
}

/** Reflection for a seat (reflection.ts): null settings when off for it. */
export interface SeatReflection {
  settings(handle: string): { readonly summarize: boolean } | null;
  /** The seats' personal memory store, where lessons are kept. */
  readonly memory: PersonalMemory;
}
