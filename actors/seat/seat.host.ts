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
 *
 * A turn's progress is journaled as it runs (turn.journal.ts); a wake whose turn has a journal resumes
 * it (turn.resume.ts) instead of running it again. A stop for shutdown or a lost lease cuts the running
 * turn (turn.cut.ts): nothing is recorded as failed, the wake stays for the next holder. A drain first
 * lets the running turn finish within its grace.
 */
import type { Logger } from 'pino';
import { createActor, type Actor } from 'xstate';
import { RedeliverError, Streams, Subjects, type Bus, type Kv, type Subscription } from '../../bus/index.js';
import { leaseHeaders, LeaseFencedError, noFence, type Fence } from '../lease/index.js';
import { turnNeeds, type NeedsBoard } from '../memory/index.js';
import { InboxMessage, uuidv5 } from '../../schema/index.js';
import { seatMachine, type PhaseRequest, type SeatEvent } from './seat.machine.js';
import type { TurnCompletedPayload } from './seat.types.js';
import type { TurnLimits } from './seat.limits.js';
import type { Company, SeatProfile } from './seat.profile.js';
import type { TurnDeps } from './turn.deps.js';
import { turnDeadline } from './turn.deadline.js';
import { PhaseFailure, runPhase } from './turn.phase.js';
import { draftOf, episodeOf, noteOutcome, type EpisodeDraft } from './turn.episode.js';
import { moveLegacyTurnRecords, readPaused, seatKeys } from './seat.records.js';
import { CutReason, TurnCut } from './turn.cut.js';
import { distinctNeeds, openTurn, wakeEvent, type OpenedTurn } from './turn.resume.js';
import { fencedDeps, seatEvents } from './seat.events.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

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
  /** The lease epoch the seat acts under, carried by every record it writes (`svc-lease-epoch`). */
  readonly leaseEpoch?: number;
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

interface Pending {
  readonly turn_id: string;
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
  /** Settles with the turn (completed, or cut). */
  readonly done: Promise<void>;
}

function pendingTurn(turnId: string): Pending {
  let settle: Pick<Pending, 'resolve' | 'reject'> = { resolve: () => undefined, reject: () => undefined };
  const done = new Promise<void>((resolve, reject) => {
    settle = { resolve, reject };
  });
  return { turn_id: turnId, ...settle, done };
}

export async function startSeatHost(opts: SeatHostOptions): Promise<SeatHost> {
  const handle = opts.profile.handle;
  const log = opts.logger.child({ seat: handle });
  const fence = opts.fence ?? noFence;
  const deps = fencedDeps(opts.deps, fence);
  const headers = leaseHeaders(opts.leaseEpoch);
  const { event, publishEvent, eventsFor } = seatEvents({
    bus: opts.bus,
    source: `${opts.nodeId}/seat/${handle}`,
    handle,
    fence,
    now: deps.now,
    ...(headers ? { headers } : {}),
  });
  let profile = opts.profile;
  let stopping = false;
  /** Set by a drain: wakes not yet started stay in the inbox. */
  let draining = false;
  let stopped: Promise<void> | null = null;
  let pending: Pending | null = null;
  let abort = new AbortController();
  /** Per turn: the profile and picked tools it started with (in-flight turns keep their settings). */
  const turns = new Map<string, { profile: SeatProfile; picked: readonly string[] }>();
  /** Per turn: what its phases produced, for its episode. */
  const drafts = new Map<string, EpisodeDraft>();
  /** Per turn: its journal (what an earlier run recorded, and the writer). */
  const journals = new Map<string, OpenedTurn>();

  async function phase(req: PhaseRequest): Promise<void> {
    const { turn } = req;
    const started = turns.get(turn.turn_id) ?? { profile, picked: [] };
    turns.set(turn.turn_id, started);
    const company = opts.company();
    const journal = journals.get(turn.turn_id)?.phase(req.phase, turn.iteration);
    try {
      const result = await runPhase(
        // Fenced: every model call, tool call and spend record proves the lease first.
        { ...deps, events: eventsFor(turn.wake.trace_id) },
        {
          turn,
          phase: req.phase,
          seat: started.profile,
          charter: company.charter,
          caps: { org: company.token_budget, seat: started.profile.token_budget },
          signal: abort.signal,
          ...(journal ? { journal } : {}),
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
      await publishEvent(record);
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
              journals.delete(params.payload.turn_id);
              const needs = turnNeeds(distinctNeeds(opts.needs?.take(handle, params.payload.turn_id) ?? []));
              const payload = needs ? { ...params.payload, needs } : params.payload;
              const current = pending;
              try {
                const record = event('agent_turn_completed', payload, payload.failed, params.trace_id);
                // The record id is the turn's: a second completion of one wake is de-duplicated.
                await publishEvent({ ...record, id: `turn-${params.payload.turn_id}` });
                if (draft) await recordEpisode(draft, payload);
                fence();
                await opts.turnsDone.put(
                  seatKeys.turnDone(handle, params.payload.turn_id),
                  encoder.encode(
                    JSON.stringify({
                      turn_id: params.payload.turn_id,
                      at: params.payload.ended_at,
                      ...(opts.leaseEpoch !== undefined ? { lease_epoch: opts.leaseEpoch } : {}),
                    }),
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
    if (stopping || draining) throw new RedeliverError('seat stopping');
    fence();
    if (actor.getSnapshot().matches({ stopped: 'paused' })) {
      log.debug({ wake_id: wake.id }, 'seat paused; wake left for later');
      throw new RedeliverError('seat paused', opts.pausedRetryMs ?? 2000);
    }
    // A scheduled wake bounds its turn; one taken after its deadline fails at once, without a model call.
    const deadline = turnDeadline(wake.payload, { handle, turnId: turn_id, now: deps.now });
    // A turn an earlier run started resumes from its journal: its start, its limits, its records.
    const opened = await openTurn({
      bus: opts.bus,
      handle,
      turnId: turn_id,
      node: opts.nodeId,
      fence,
      now: deps.now,
      ...(opts.needs ? { needs: opts.needs } : {}),
      ...(headers ? { headers } : {}),
    });
    const resumed = opened.prior?.started ?? null;
    const start = wakeEvent(wake, turn_id, resumed, deadline.expired, deps.now);
    const busy = (): boolean => !actor.getSnapshot().can(start);
    if (busy()) throw new RedeliverError('seat busy', opts.pausedRetryMs ?? 2000);
    if (!resumed && !deadline.expired)
      await opened.writer.write({
        kind: 'turn_started',
        wake_id: wake.id,
        limits: actor.getSnapshot().context.limits,
      });
    // Checked again after the write: a pause or a stop may have come meanwhile.
    if (stopping || draining || busy()) throw new RedeliverError('seat busy', opts.pausedRetryMs ?? 2000);
    journals.set(turn_id, opened);
    pending = pendingTurn(turn_id);
    const { done } = pending;
    actor.send(start);
    const disarm = deadline.arm((e) => actor.send(e));
    log.info(
      { wake_id: wake.id, turn_id, expired: deadline.expired !== undefined, resumed: resumed !== null },
      resumed ? 'turn resumed' : 'turn started',
    );
    try {
      await done;
    } finally {
      disarm();
    }
    // The acknowledgement is an effect too: a fenced holder leaves the wake to the new one.
    fence();
    log.info({ wake_id: wake.id, turn_id }, 'turn completed');
  }

  /**
   * Stops the seat. A running turn is cut, not failed: a shutdown's cut is journaled (so the next holder
   * sees why the turn paused), a lost lease writes nothing (the fence refuses it); the wake is left.
   */
  async function cut(reason: CutReason): Promise<void> {
    stopping = true;
    const running = pending;
    pending = null;
    abort.abort(new TurnCut(reason));
    if (running) {
      if (reason === CutReason.Shutdown) {
        await journals
          .get(running.turn_id)
          ?.writer.write({ kind: 'cut', reason })
          .catch((error: unknown) => log.warn({ err: error }, 'turn cut not journaled'));
        log.info({ turn_id: running.turn_id }, 'turn cut for shutdown; handed over');
      }
      running.reject(
        reason === CutReason.LeaseLost
          ? new LeaseFencedError(`seat.${handle}`, null)
          : new RedeliverError('seat stopped mid-turn'),
      );
    }
    await sub?.stop();
    actor.stop();
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
    stop: (stopOpts) => (stopped ??= cut(stopOpts?.fenced ? CutReason.LeaseLost : CutReason.Shutdown)),
    async drain(graceMs) {
      draining = true;
      const running = pending;
      if (running && graceMs > 0) {
        let timer: NodeJS.Timeout | undefined;
        const expired = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
        const finished = running.done.then(
          () => undefined,
          () => undefined,
        );
        await Promise.race([finished, expired]);
        clearTimeout(timer);
      }
      await (stopped ??= cut(CutReason.Shutdown));
    },
  };
}
