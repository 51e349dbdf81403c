/**
 * One agent seat on this node: consumes its inbox durably, runs the seat machine and executes the
 * effects it names. A wake is acknowledged only after its turn's events are stored, and a wake id that
 * already completed is acknowledged without running again (the record lives in `svc_turns_done` for
 * the window in which the wake can come back), so a restart mid-turn neither loses the wake nor runs it
 * twice to completion.
 *
 * Every effect the seat makes as the lease holder (a model call, a tool call, a spend record, an event,
 * the completion record, the acknowledgement) passes the lease's fence first: a node that can no
 * longer prove its lease refuses it, so a holder resumed after a pause or a partition cannot finish a
 * turn a peer has started. A fenced wake is left unacknowledged for the new holder.
 */
import type { Logger } from 'pino';
import { createActor, type Actor } from 'xstate';
import { RedeliverError, Streams, Subjects, type Bus, type Kv, type Subscription } from '../../bus/index.js';
import { LeaseFencedError, noFence, type Fence } from '../lease/index.js';
import { turnNeeds, type NeedsBoard } from '../memory/index.js';
import {
  categoryOf,
  EventCategory,
  InboxMessage,
  newEvent,
  Payloads,
  uuidv5,
  type EventRecord,
} from '../../schema/index.js';
import { seatMachine, type Paused, type PhaseRequest, type SeatEvent, type Wake } from './seat.machine.js';
import type { TurnCompletedPayload } from './seat.types.js';
import type { TurnLimits } from './seat.limits.js';
import type { Company, SeatProfile } from './seat.profile.js';
import type { TurnDeps, TurnEvents } from './turn.deps.js';
import { turnDeadline } from './turn.deadline.js';
import { PhaseFailure, runPhase } from './turn.phase.js';
import { draftOf, episodeOf, noteOutcome, type EpisodeDraft } from './turn.episode.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Keys of this seat: in `svc_turns_done` (`turnDone`) and in the coordination store (the others). */
export const seatKeys = {
  /** Set once the turn of a wake completed; the turn id is uuidv5(agent id, wake id). */
  turnDone: (handle: string, turnId: string): string => `${handle}.${turnId}`,
  /**
   * Where releases before `svc_turns_done` recorded a completed turn (in `svc_coord`, never expiring).
   * A seat host moves its own into `svc_turns_done` when it opens (`moveLegacyTurnRecords`) and still
   * reads here, for a node of an older release writing one meanwhile.
   */
  legacyTurnDone: (handle: string, turnId: string): string => `seat.${handle}.turn.${turnId}`,
  paused: (handle: string): string => `seat.${handle}.paused`,
};

export interface SeatHostOptions {
  readonly bus: Bus;
  readonly coord: Kv;
  /** `svc_turns_done`: the record of each completed turn, read before running a wake. */
  readonly turnsDone: Kv;
  readonly nodeId: string;
  readonly logger: Logger;
  readonly deps: Omit<TurnDeps, 'events'>;
  /** The company as last applied (charter, caps); read at the start of each turn. */
  readonly company: () => Company;
  readonly limits: TurnLimits;
  readonly profile: SeatProfile;
  /** How long a paused seat leaves a wake before it is offered again. */
  readonly pausedRetryMs?: number;
  /** The `needs` asked during a turn (`ask_human`), merged into its `agent_turn_completed`. */
  readonly needs?: NeedsBoard;
  /** Whether the seat learns: its completed turns record `episode_recorded`. Default: never. */
  readonly learning?: (handle: string) => boolean;
  /** How soon a wake held by a holder that died goes to the next one; default 30 s (the lease ttl). */
  readonly inboxAckWaitMs?: number;
  /** The seat lease's fence, checked before every effect; default none (one process owns the seat). */
  readonly fence?: Fence;
}

export interface SeatHost {
  readonly handle: string;
  /** Machine state, for tests and logs: `idle`, `working.plan`, `stopped.paused`, ... */
  state(): string;
  /** A changed definition: the next turn runs on it. */
  update(profile: SeatProfile): void;
  send(event: SeatEvent): void;
  /** Starts consuming the inbox (once the apply that spawned the seat has finished). */
  open(): Promise<void>;
  /**
   * Stops consuming; a running turn is cut and its wake left for redelivery. `fenced`: the lease is
   * lost, so not even a negative acknowledgement goes out (the wake is the new holder's now).
   */
  stop(opts?: { fenced?: boolean }): Promise<void>;
}

/** The turn's dependencies with the fence in front of every call that acts as the seat. */
function fencedDeps(deps: Omit<TurnDeps, 'events'>, fence: Fence): Omit<TurnDeps, 'events'> {
  const { llm, tools } = deps;
  return {
    ...deps,
    llm: {
      resolve: (seat) => llm.resolve(seat),
      call: (chain, request, caller) => {
        fence();
        return llm.call(chain, request, caller);
      },
      ...(llm.snapshot ? { snapshot: () => llm.snapshot?.() ?? {} } : {}),
    },
    tools: {
      toolsFor: (seat) => tools.toolsFor(seat),
      call: (ctx, call) => {
        fence();
        return tools.call(ctx, call);
      },
    },
    spend: (record) => {
      fence();
      return deps.spend(record);
    },
  };
}

interface Pending {
  readonly turn_id: string;
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}

export async function startSeatHost(opts: SeatHostOptions): Promise<SeatHost> {
  const handle = opts.profile.handle;
  const log = opts.logger.child({ seat: handle });
  const fence = opts.fence ?? noFence;
  const deps = fencedDeps(opts.deps, fence);
  let profile = opts.profile;
  let stopping = false;
  let pending: Pending | null = null;
  let abort = new AbortController();
  /** Per turn: the profile and picked tools it started with (in-flight turns keep their settings). */
  const turns = new Map<string, { profile: SeatProfile; picked: readonly string[] }>();
  /** Per turn: what its phases produced, for its episode. */
  const drafts = new Map<string, EpisodeDraft>();

  const publishEvent = async (record: EventRecord): Promise<void> => {
    fence();
    await opts.bus.publish(Subjects.event(record.type), encoder.encode(JSON.stringify(record)), {
      msgId: record.id,
    });
  };
  const event = (
    type: string,
    payload: Record<string, unknown>,
    failed = false,
    trace?: string,
  ): EventRecord =>
    newEvent({
      type,
      // The admission map decides the category (budget_exhausted and turn.guard_breach are `decision`).
      category: categoryOf(type) ?? EventCategory.Lifecycle,
      source: `${opts.nodeId}/seat/${handle}`,
      summary: `${handle}: ${type}${typeof payload['phase'] === 'string' ? ` (${payload['phase']})` : ''}`,
      actor: handle,
      agent_id: handle,
      payload,
      failed,
      ...(trace ? { trace: { trace_id: trace, parent_span_id: null } } : {}),
      now: deps.now(),
    });
  const eventsFor = (trace: string): TurnEvents => ({
    publish: (type, payload, failed) => publishEvent(event(type, payload, failed ?? false, trace)),
    progress: (payload) => {
      try {
        fence();
      } catch {
        return;
      }
      const record = event('agent_turn_progress', payload, false, trace);
      opts.bus.emit(Subjects.event(record.type), encoder.encode(JSON.stringify(record)));
    },
  });

  async function phase(req: PhaseRequest): Promise<void> {
    const { turn } = req;
    const started = turns.get(turn.turn_id) ?? { profile, picked: [] };
    turns.set(turn.turn_id, started);
    const company = opts.company();
    try {
      const result = await runPhase(
        { ...opts.deps, events: eventsFor(turn.wake.trace_id) },
        {
          turn,
          phase: req.phase,
          seat: started.profile,
          charter: company.charter,
          caps: { org: company.token_budget, seat: started.profile.token_budget },
          signal: abort.signal,
        },
        started.picked,
      );
      // A turn cut at its deadline has ended already: its late phase leaves nothing behind.
      if (turns.has(turn.turn_id)) {
        if (result.picked) turns.set(turn.turn_id, { ...started, picked: result.picked });
        drafts.set(
          turn.turn_id,
          noteOutcome(drafts.get(turn.turn_id) ?? draftOf(turn.wake), result.outcome, result.tools),
        );
      }
      if (!stopping)
        actor.send({
          type: 'seat.phase.done',
          turn_id: turn.turn_id,
          tokens: result.tokens,
          at: deps.now().toISOString(),
          outcome: result.outcome,
        });
    } catch (error) {
      if (stopping) return;
      const failure = error instanceof PhaseFailure ? error : new PhaseFailure('error', String(error), 0);
      if (failure.reason !== 'aborted')
        log.warn({ err: error, turn_id: turn.turn_id, phase: req.phase }, 'phase failed');
      actor.send({
        type: 'seat.phase.failed',
        turn_id: turn.turn_id,
        phase: req.phase,
        tokens: failure.tokens,
        at: deps.now().toISOString(),
        reason: failure.reason,
        error: failure.message,
      });
    }
  }

  /** `episode_recorded` once per turn (its id is the turn's); a failure costs the episode, not the turn. */
  async function recordEpisode(draft: EpisodeDraft, payload: TurnCompletedPayload): Promise<void> {
    if (!(opts.learning?.(handle) ?? false)) return;
    const episode = episodeOf(draft, payload);
    if (!episode) return;
    const record = {
      ...event('episode_recorded', episode, false, draft.wake.trace_id),
      id: `episode-${episode.id}`,
    };
    try {
      fence();
      await opts.bus.publish(Subjects.event(record.type), encoder.encode(JSON.stringify(record)), {
        msgId: record.id,
      });
    } catch (error) {
      log.warn({ err: error, turn_id: payload.turn_id }, 'episode not recorded');
    }
  }

  const run = (p: Promise<void>): void => {
    p.catch((error: unknown) => log.error({ err: error }, 'seat effect failed'));
  };

  const actor: Actor<typeof seatMachine> = createActor(
    seatMachine.provide({
      actions: {
        runPhase: (_, params) => run(phase(params)),
        // Always a message: it is the phase's error and the reason a tool server is told on cancellation.
        abortTurn: (_, params) => abort.abort(params.reason ?? 'the turn was stopped'),
        completeTurn: (_, params) =>
          run(
            (async () => {
              turns.delete(params.payload.turn_id);
              const draft = drafts.get(params.payload.turn_id);
              drafts.delete(params.payload.turn_id);
              const needs = turnNeeds(opts.needs?.take(handle, params.payload.turn_id) ?? []);
              const payload = needs ? { ...params.payload, needs } : params.payload;
              const current = pending;
              try {
                fence();
                const record = event('agent_turn_completed', payload, payload.failed, params.trace_id);
                // The record id is the turn's: a second completion of one wake is de-duplicated.
                await opts.bus.publish(
                  Subjects.event(record.type),
                  encoder.encode(JSON.stringify({ ...record, id: `turn-${params.payload.turn_id}` })),
                  { msgId: `turn-${params.payload.turn_id}` },
                );
                if (draft) await recordEpisode(draft, payload);
                fence();
                await opts.turnsDone.put(
                  seatKeys.turnDone(handle, params.payload.turn_id),
                  encoder.encode(
                    JSON.stringify({ turn_id: params.payload.turn_id, at: params.payload.ended_at }),
                  ),
                );
                if (current?.turn_id === params.payload.turn_id) current.resolve();
              } catch (error) {
                current?.reject(error instanceof Error ? error : new Error(String(error)));
              }
              if (current === pending) pending = null;
              abort = new AbortController();
            })(),
          ),
        guardBreach: (_, params) => run(publishEvent(event('turn.guard_breach', params, true))),
        announcePaused: (_, params) =>
          run(
            (async () => {
              fence();
              await opts.coord.put(seatKeys.paused(handle), encoder.encode(JSON.stringify(params.paused)));
              await publishEvent(event('agent_paused', { paused: params.paused }));
            })(),
          ),
        announceResumed: (_, params) =>
          run(
            (async () => {
              fence();
              await opts.coord.delete(seatKeys.paused(handle));
              await publishEvent(event('agent_resumed', params));
            })(),
          ),
      },
    }),
    { input: { handle, limits: opts.limits, paused: await readPaused(opts.coord, handle) } },
  );
  actor.start();

  /** Whether the turn completed already: its record, or one written before `svc_turns_done` existed. */
  const completed = async (turnId: string): Promise<boolean> =>
    (await opts.turnsDone.get(seatKeys.turnDone(handle, turnId))) !== null ||
    (await opts.coord.get(seatKeys.legacyTurnDone(handle, turnId))) !== null;

  async function onWake(raw: Uint8Array): Promise<void> {
    let wake: InboxMessage;
    try {
      wake = InboxMessage.parse(JSON.parse(decoder.decode(raw)));
    } catch (error) {
      log.warn({ err: error }, 'inbox message unreadable; dropped');
      return;
    }
    const turn_id = uuidv5(profile.agent_id, wake.id);
    if (await completed(turn_id)) {
      log.info({ wake_id: wake.id }, 'wake already completed; acknowledged');
      return;
    }
    if (stopping) throw new RedeliverError('seat stopping');
    fence();
    if (actor.getSnapshot().matches({ stopped: 'paused' })) {
      log.debug({ wake_id: wake.id }, 'seat paused; wake left for later');
      throw new RedeliverError('seat paused', opts.pausedRetryMs ?? 2000);
    }
    const w: Wake = {
      id: wake.id,
      kind: wake.kind,
      source: wake.source,
      summary: wake.summary,
      trace_id: wake.trace_id || turn_id.replaceAll('-', ''),
      payload: wake.payload,
    };
    // A scheduled wake bounds its turn; one taken after its deadline fails at once, without a model call.
    const deadline = turnDeadline(wake.payload, { handle, turnId: turn_id, now: deps.now });
    const start: SeatEvent = {
      type: 'seat.wake',
      wake: w,
      turn_id,
      at: deps.now().toISOString(),
      ...(deadline.expired ? { expired: deadline.expired } : {}),
    };
    if (!actor.getSnapshot().can(start)) throw new RedeliverError('seat busy', opts.pausedRetryMs ?? 2000);
    const done = new Promise<void>((resolve, reject) => {
      pending = { turn_id, resolve, reject };
    });
    actor.send(start);
    const disarm = deadline.arm((e) => actor.send(e));
    log.info({ wake_id: wake.id, turn_id, expired: deadline.expired !== undefined }, 'turn started');
    try {
      await done;
    } finally {
      disarm();
    }
    // The acknowledgement is an effect too: a fenced holder leaves the wake to the new one.
    fence();
    log.info({ wake_id: wake.id, turn_id }, 'turn completed');
  }

  let sub: Subscription | null = null;
  let moved = false;
  const open = async (): Promise<void> => {
    if (sub || stopping) return;
    if (!moved) {
      moved = true;
      try {
        const count = await moveLegacyTurnRecords(opts.coord, opts.turnsDone, handle);
        if (count > 0) log.info({ moved: count }, 'completed-turn records moved to svc_turns_done');
      } catch (error) {
        // They stay readable where they are: nothing runs twice, the move is tried on the next start.
        log.warn({ err: error }, 'completed-turn records not moved');
      }
    }
    sub = await opts.bus.consume(
      Streams.Inbox,
      {
        durable: `seat-${handle}`,
        filterSubject: Subjects.agentInbox(handle),
        // A running turn keeps its wake however long it takes; a holder that died loses it this soon.
        ackWaitMs: opts.inboxAckWaitMs ?? 30_000,
      },
      (msg) => onWake(msg.data),
    );
  };

  return {
    handle,
    state: () => JSON.stringify(actor.getSnapshot().value).replace(/[{}"]/g, '').replace(':', '.'),
    update: (next) => {
      profile = next;
    },
    send: (e) => actor.send(e),
    open,
    async stop(stopOpts) {
      stopping = true;
      const fenced = stopOpts?.fenced ?? false;
      abort.abort(fenced ? 'the seat lease was lost' : 'the turn was stopped');
      pending?.reject(
        fenced ? new LeaseFencedError(`seat.${handle}`, null) : new RedeliverError('seat stopped mid-turn'),
      );
      pending = null;
      await sub?.stop();
      actor.stop();
    },
  };
}

/**
 * Moves the seat's completed-turn records from `svc_coord`, where releases before `svc_turns_done` kept
 * them with no expiry, into `svc_turns_done`, where they expire with the rest. Each is written there
 * before it is removed here, so a stop between the two leaves it readable in both. Answers how many moved.
 */
export async function moveLegacyTurnRecords(coord: Kv, turnsDone: Kv, handle: string): Promise<number> {
  const prefix = seatKeys.legacyTurnDone(handle, '');
  let moved = 0;
  for (const key of await coord.keys(`${prefix}*`)) {
    const entry = await coord.get(key);
    if (entry === null) continue;
    await turnsDone.put(seatKeys.turnDone(handle, key.slice(prefix.length)), entry.value);
    await coord.delete(key);
    moved += 1;
  }
  return moved;
}

async function readPaused(coord: Kv, handle: string): Promise<Paused | null> {
  const entry = await coord.get(seatKeys.paused(handle));
  if (!entry) return null;
  try {
    const parsed = Payloads.Paused.safeParse(JSON.parse(decoder.decode(entry.value)));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
