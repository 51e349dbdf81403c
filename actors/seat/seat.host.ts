/**
 * One agent seat on this node: consumes its inbox durably (seat.inbox.ts), runs the seat machine and
 * executes the effects it names (a phase: seat.phases.ts; a completed turn's records: turn.complete.ts). The seat's own state — the questions it waits on — is event-sourced:
 * each change is appended to the seat's log (seat.log.ts) before the machine hears of it, and the machine
 * starts from the log's fold, so a restart or a peer taking the seat over starts where it was. A wake is acknowledged only after its turn's events are stored, and a wake id that
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
import { createActor, type Actor } from 'xstate';
import { RedeliverError, type Subscription } from '../../bus/index.js';
import { leaseHeaders, LeaseFencedError, noFence } from '../lease/index.js';
import { seatMachine } from './seat.machine.js';
import type { EpisodeDraft } from './turn.episode.js';
import { episodeRecorder } from './seat.episodes.js';
import { readPaused, seatKeys } from './seat.records.js';
import { CutReason, TurnCut } from './turn.cut.js';
import type { OpenedTurn } from './turn.resume.js';
import { fencedDeps, seatEvents } from './seat.events.js';
import { consumeInbox, type InboxHost } from './seat.inbox.js';
import { openSeatLog } from './seat.log.js';
import { needsWriter } from './seat.needs-host.js';
import type { SeatHost, SeatHostOptions } from './seat.host.types.js';
import { turnSpans } from './turn.spans.js';
import { closeCutPhases } from './turn.close.js';
import { completedPayload, recordCompletion } from './turn.complete.js';
import { phaseRunner, type StartedTurn } from './seat.phases.js';

const encoder = new TextEncoder();

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
  const spans = turnSpans(opts.deps.tracer, handle);
  const headers = leaseHeaders(opts.leaseEpoch);
  const { event, publishEvent, eventsFor } = seatEvents({
    bus: opts.bus,
    source: `${opts.nodeId}/seat/${handle}`,
    handle,
    fence,
    now: deps.now,
    ...(headers ? { headers } : {}),
    ...(opts.localProgress ? { localProgress: opts.localProgress } : {}),
  });
  let profile = opts.profile;
  let stopping = false;
  /** Set by a drain: wakes not yet started stay in the inbox. */
  let draining = false;
  let stopped: Promise<void> | null = null;
  let pending: Pending | null = null;
  let abort = new AbortController();
  /** Per turn: how it started (seat.phases.ts). */
  const turns = new Map<string, StartedTurn>();
  /** Per turn: what its phases produced, for its episode. */
  const drafts = new Map<string, EpisodeDraft>();
  /** Per turn: its journal (what an earlier run recorded, and the writer). */
  const journals = new Map<string, OpenedTurn>();

  const phase = phaseRunner({
    opts,
    log,
    deps,
    eventsFor,
    spans,
    turns,
    drafts,
    journals,
    profile: () => profile,
    signal: () => abort.signal,
    stopping: () => stopping,
    tell: (e) => actor.send(e),
  });

  const episodes = episodeRecorder({
    opts,
    handle,
    log,
    deps,
    profile: () => profile,
    events: { event, publishEvent },
  });

  const completion = {
    handle,
    turnsDone: opts.turnsDone,
    fence,
    events: { event, publishEvent },
    episodes,
    leaseEpoch: opts.leaseEpoch,
  };

  // The seat's own state (its open needs) as its log left it: rebuilt before the machine starts.
  const seatLog = await openSeatLog({
    bus: opts.bus,
    handle,
    node: opts.nodeId,
    fence,
    now: deps.now,
    ...(headers ? { headers } : {}),
    onTrouble: (what, error) => log.warn({ err: error }, `seat log: ${what}`),
  });

  const run = (p: Promise<void>): void => {
    p.catch((error: unknown) => log.error({ err: error }, 'seat effect failed'));
  };

  const actor: Actor<typeof seatMachine> = createActor(
    seatMachine.provide({
      actions: {
        runPhase: (_, params) => run(phase(params)),
        // Always a message: it is the phase's error and the reason a tool server is told on cancellation.
        abortTurn: (_, params) => abort.abort(params.reason),
        cutTurn: () => run(cutRunning(CutReason.Paused)),
        deferTurn: (_, params) => run(deferRunning(params.turn_id, params.retry_at)),
        completeTurn: ({ context }, params) =>
          run(
            (async () => {
              const opened = journals.get(params.payload.turn_id);
              const seat = turns.get(params.payload.turn_id)?.profile ?? profile;
              turns.delete(params.payload.turn_id);
              const draft = drafts.get(params.payload.turn_id);
              drafts.delete(params.payload.turn_id);
              journals.delete(params.payload.turn_id);
              const ran = completedPayload(params.payload, params.needs);
              const current = pending;
              try {
                // The phases a cut left open that this run never took up are closed before the turn is.
                const payload =
                  opened && context.turn
                    ? await closeCutPhases(opened, ran, {
                        turn: context.turn,
                        seat,
                        charter: opts.company().charter,
                        deps,
                        error: ran.error ?? 'the turn ended',
                        publish: (record, id) =>
                          publishEvent({
                            ...event('agent_phase_completed', record, true, params.trace_id),
                            id,
                          }),
                      })
                    : ran;
                spans.completed(payload, context.turn);
                await recordCompletion(completion, payload, params.trace_id, draft);
                if (current?.turn_id === params.payload.turn_id) current.resolve();
              } catch (error) {
                spans.completed(ran, context.turn);
                current?.reject(error instanceof Error ? error : new Error(String(error)));
              }
              if (current === pending) pending = null;
              abort = new AbortController();
            })(),
          ),
        guardBreach: (_, { trace_id, ...breach }) => {
          const record = event('turn.guard_breach', breach, true, trace_id ?? undefined);
          // One breach of a kind per turn: a redelivered turn's second publication is de-duplicated.
          const id = breach.turn_id ? `breach-${breach.turn_id}-${breach.kind}` : record.id;
          run(publishEvent({ ...record, id }));
        },
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
    {
      input: {
        handle,
        limits: opts.limits,
        paused: await readPaused(opts.coord, handle),
        needs: seatLog.needs(),
      },
    },
  );
  actor.start();
  const needs = needsWriter({ handle, seatLog, events: { event, publishEvent }, tell: (e) => actor.send(e) });

  /**
   * Stops the seat. A running turn is cut, not failed: a shutdown's cut is journaled (so the next holder
   * sees why the turn paused), a lost lease writes nothing (the fence refuses it); the wake is left.
   */
  async function cut(reason: CutReason): Promise<void> {
    stopping = true;
    episodes.stop();
    await cutRunning(reason);
    await sub?.stop();
    actor.stop();
  }

  /**
   * Cuts the running turn, if any: its calls in flight are cancelled, the cut is journaled (but for a
   * lost lease), and its wake is left in the inbox — for the next holder, or for this seat once resumed.
   */
  async function cutRunning(reason: CutReason): Promise<void> {
    abort.abort(new TurnCut(reason));
    abort = new AbortController();
    const running = letGo(`cut: ${reason}`);
    if (!running) return;
    if (reason !== CutReason.LeaseLost) {
      await running.journal?.writer
        .write({ kind: 'cut', reason })
        .catch((error: unknown) => log.warn({ err: error }, 'turn cut not journaled'));
      log.info(
        { turn_id: running.turn_id },
        reason === CutReason.Paused
          ? 'turn cut by a pause; resumes with the seat'
          : 'turn cut for shutdown; handed over',
      );
    }
    running.reject(
      reason === CutReason.LeaseLost
        ? new LeaseFencedError(`seat.${handle}`, null)
        : reason === CutReason.Paused
          ? new RedeliverError('seat paused mid-turn', opts.pausedRetryMs ?? 2000)
          : new RedeliverError('seat stopped mid-turn'),
    );
  }

  /** The running turn is no longer this run's: forgotten here, its journal handed back for a last record. */
  function letGo(why: string): (Pending & { journal: OpenedTurn | undefined }) | null {
    const running = pending;
    pending = null;
    if (!running) return null;
    spans.leftOff(running.turn_id, why);
    const journal = journals.get(running.turn_id);
    turns.delete(running.turn_id);
    drafts.delete(running.turn_id);
    journals.delete(running.turn_id);
    return { ...running, journal };
  }

  /**
   * The provider chain has no key until `retryAt`: the turn's wake goes back to the inbox, offered again
   * then, and the turn resumes from its journal (nothing was recorded as failed).
   */
  async function deferRunning(turnId: string, retryAt: string): Promise<void> {
    const running = pending?.turn_id === turnId ? letGo('deferred: llm_unavailable') : null;
    if (!running) return;
    const delayMs = Math.max(0, Date.parse(retryAt) - deps.now().getTime());
    await running.journal?.writer
      .write({ kind: 'cut', reason: 'llm_unavailable' })
      .catch((error: unknown) => log.warn({ err: error }, 'turn deferral not journaled'));
    log.info({ turn_id: turnId, retry_at: retryAt }, 'turn waits for its provider; resumes at retry_at');
    running.reject(new RedeliverError('provider unavailable until retry_at', delayMs));
  }

  let sub: Subscription | null = null;
  const inbox: InboxHost = {
    bus: opts.bus,
    coord: opts.coord,
    turnsDone: opts.turnsDone,
    nodeId: opts.nodeId,
    handle,
    log,
    fence,
    now: deps.now,
    ...(headers ? { headers } : {}),
    ...(opts.pausedRetryMs !== undefined ? { pausedRetryMs: opts.pausedRetryMs } : {}),
    ...(opts.inboxAckWaitMs !== undefined ? { inboxAckWaitMs: opts.inboxAckWaitMs } : {}),
    actor,
    profile: () => profile,
    coalescing: () => opts.company().coalescing,
    // A wake from a human the seat asked: the turn it starts takes the answer.
    answered: needs.answered,
    accepting: () => !stopping && !draining,
    begin: (turnId, opened) => {
      journals.set(turnId, opened);
      pending = pendingTurn(turnId);
      return pending.done;
    },
  };
  const open = async (): Promise<void> => {
    if (sub || stopping) return;
    const opened = await consumeInbox(inbox);
    // Stopped while the consumer attached: the stop found none to close, so this one closes here.
    if (stopping) {
      await opened.stop();
      return;
    }
    sub = opened;
  };

  return {
    handle,
    state: () => JSON.stringify(actor.getSnapshot().value).replace(/[{}"]/g, '').replace(':', '.'),
    update: (next) => {
      profile = next;
    },
    send: (e) => actor.send(e),
    recordNeed: needs.record,
    closeNeeds: needs.close,
    paused: () => actor.getSnapshot().context.paused,
    needs: () => actor.getSnapshot().context.needs,
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
