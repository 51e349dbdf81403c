/** What the seats runtime is started with, and what it offers the node (its appliers, seats and stop). */
import type { Logger } from 'pino';
import type { Bus, Kv } from '../../bus/index.js';
import type { Resolver, Tracer } from '../../schema/index.js';
import type { SubsystemApplier } from '../config/index.js';
import type { NeedsRelay } from '../memory/index.js';
import type { Budget } from './budget.js';
import type {
  SeatCounterparty,
  SeatEpisodes,
  SeatHost,
  SeatReflection,
  SeatSynthesis,
} from './seat.host.types.js';
import type { LocalProgress } from './seat.events.js';
import type { TurnDeps } from './turn.deps.js';

export interface SeatsRuntimeOptions {
  readonly bus: Bus;
  /** `${VAR}` lookup for the company timezone (secret store, then environment). */
  readonly resolve?: Resolver;
  readonly coord: Kv;
  /** `svc_turns_done` (the catalogue's `turnsDone`): completed turns, so a wake runs once. */
  readonly turnsDone: Kv;
  readonly nodeId: string;
  readonly logger: Logger;
  readonly llm: TurnDeps['llm'];
  readonly tools: TurnDeps['tools'];
  /** Seat leases: how long one binds without renewal (default 30 s) and the renewal period. */
  readonly lease?: {
    readonly ttlMs?: number;
    readonly renewEveryMs?: number;
    readonly fenceMarginMs?: number;
  };
  /**
   * Called when the held seats changed between applies, after the lost seats' hosts stopped and
   * before the taken seats' inboxes open (the tool servers follow the held seats).
   */
  readonly onHeldChanged?: () => Promise<void>;
  readonly now?: () => Date;
  /**
   * False while the fleet withholds this node's admission (another process writes its node id): no seat
   * is taken meanwhile (placement keeps the held ones). Default always admitted.
   */
  readonly admitted?: () => boolean;
  readonly pausedRetryMs?: number;
  /** Where `ask_human` records a need: bound to this runtime, which hands it to the seat's host. */
  readonly needs?: NeedsRelay;
  /** Whether a seat learns (records episodes); default never. */
  readonly learning?: (handle: string) => boolean;
  /** Skill synthesis from the seats' episodes; default none. */
  readonly synthesis?: SeatSynthesis;
  /** Counterparty profiles of the people who wake the seats; default none. */
  readonly counterparty?: SeatCounterparty;
  /** Reflection on the seats' episodes; default none. */
  readonly reflection?: SeatReflection;
  /** The learning seats' episode lifecycle; default none (episodes are only recorded). */
  readonly episodes?: SeatEpisodes;
  /** Turn, phase, model call and tool call spans; default none. */
  readonly tracer?: Tracer;
  /** Live-view pacing (`TurnDeps.progressEveryMs`); default 50 ms. */
  readonly progressEveryMs?: number;
  /** This node's read models, handed the seats' live-view frames as they go out; default none. */
  readonly localProgress?: LocalProgress;
}

export interface SeatsRuntime {
  /** `org`: spawn, terminate, swap. */
  readonly org: SubsystemApplier;
  /** `turn_engine`: limits for the next turns. */
  readonly turnEngine: SubsystemApplier;
  /**
   * Opens the inboxes of seats spawned by this apply. Give it last (named `seat_inboxes`, it runs
   * after the providers and the tool servers), so a queued wake never meets a half-applied node.
   */
  readonly inboxes: SubsystemApplier;
  readonly budget: Budget;
  /** Handles with a running host on this node (the seats it holds). */
  seats(): string[];
  /** Whether this node holds the seat's lease. */
  holds(handle: string): boolean;
  /** Held seats whose lease is overdue for renewal: seat → seconds since its last proof. */
  unproven(): Record<string, number>;
  host(handle: string): SeatHost | null;
  /** Called after the hosts followed a change of the held seats. */
  onSeatsChanged(listener: () => void): void;
  /**
   * Stops every host, then releases the seat leases so peers take over at once. With
   * `release: false` the leases are left to expire, as a crashed process leaves them. A turn still
   * running is cut for shutdown: its wake stays, and the next holder resumes it from its journal.
   */
  stop(opts?: { release?: boolean }): Promise<void>;
  /**
   * The first step of a node's drain: no seat takes a new wake (nor is a seat taken up) from now on;
   * running turns get up to `graceMs` to finish, then the rest are cut for shutdown. `stop` follows.
   */
  drain(graceMs: number): Promise<void>;
}
