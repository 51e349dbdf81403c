/**
 * The sandbox supervisor of one seats node (ops/sandboxes.md): launches runs on its backend, watches the
 * ones it launched (every `pollMs`: a question, a result, a process gone), delivers answers
 * (`sandbox-<node>.answer`), and for every move stores the run's record on SVC_SANDBOX then publishes
 * the `sandbox_run_*` event the run machine names. A question (and an end nobody waits on) wakes the seat.
 * The record says what its move still owes until both are done, so a restart does what a crash cut
 * (sandbox.owed.ts).
 * On start it takes up its node's live runs from the records: a launch cut before the agent started fails.
 * A live run whose node left the fleet a month ago is recorded failed by any seats node, and stopped by its
 * node should that come back (sandbox.lost.ts).
 */
import { serveCommand, type Subscription } from '../../bus/index.js';
import {
  Commands,
  type SandboxAnswerReply,
  type SandboxCancelReply,
  type SandboxRunRecord,
} from '../../schema/index.js';
import type { SandboxSupervisor, SupervisorOptions } from './sandbox.host.types.js';
import { stepRun, type RunEvent } from './sandbox.machine.js';
import { endLostRuns, stopLostRuns } from './sandbox.lost.js';
import { launchStart } from './sandbox.launch.js';
import { isLive, publicRun } from './sandbox.records.js';
import { scrubRun } from './sandbox.settings.js';
import { addTelemetry, telemetryTally } from './sandbox.telemetry.js';
import { owedBy, payOwed } from './sandbox.owed.js';
import { startWithdrawals } from './sandbox.withdraw.js';

/** How old a live run's newest record may grow before it is stored again. */
const REFRESH_MS = 24 * 3_600_000;

/** Why a launch in progress was aborted: a cancel (by whom, why) or the node's stop. */
type LaunchAbort =
  { readonly kind: 'cancel'; readonly by: string; readonly reason: string } | { readonly kind: 'stop' };

/** A run that asks or ends stops waiting; `resumed` and `running` go on. */
const settled = (run: SandboxRunRecord): boolean => run.status === 'awaiting_clarification' || !isLive(run);

export function startSandboxSupervisor(opts: SupervisorOptions): SandboxSupervisor {
  const { bus, records, backend, logger } = opts;
  const now = opts.now ?? (() => new Date());
  const pollMs = opts.pollMs ?? 250;
  const tally = telemetryTally({ everyMs: opts.telemetryEveryMs ?? 5_000, now: () => now().getTime() });
  const chains = new Map<string, Promise<unknown>>();
  /** Runs some turn's tool call waits on right now (an end they see needs no wake). */
  const waiting = new Map<string, number>();
  let stopped = false;

  /**
   * One run's moves happen one at a time. A chain that goes idle (its last move settled, none queued
   * after it) is dropped, so a node that runs many sandboxes keeps entries only for runs with moves pending.
   */
  const serial = <T>(id: string, work: () => Promise<T>): Promise<T> => {
    const next = (chains.get(id) ?? Promise.resolve()).then(work, work);
    const tail = next.then(
      () => undefined,
      () => undefined,
    );
    chains.set(id, tail);
    void tail.then(() => {
      if (chains.get(id) === tail) chains.delete(id);
    });
    return next;
  };

  /**
   * Applies one event: stores the record the machine gives (with the exports tallied), then does what the
   * move owes — its event, the seat's wake — and stores it again owing nothing (sandbox.owed.ts). What an
   * earlier move still owes (cut by a failure) is done first, so a newer record never drops it.
   */
  const apply = async (
    before: SandboxRunRecord | null,
    event: RunEvent,
  ): Promise<SandboxRunRecord | null> => {
    const stored = before?.owed?.by === opts.node ? await pay(before) : before;
    const counts = stored === null ? null : tally.take(stored.sandbox_id);
    const current =
      stored && counts ? { ...stored, telemetry: addTelemetry(stored.telemetry, counts) } : stored;
    const step = stepRun(current, event);
    if (step.run === null) {
      if (stored && counts && isLive(stored)) tally.restore(stored.sandbox_id, counts);
      return null;
    }
    // What the agent or a setup step wrote leaves the run without the seat's sandbox secrets.
    const run = scrubRun(step.run, opts.secretsOf?.(step.run.agent_handle) ?? []);
    if (step.emit === null) {
      await records.put(run);
      return run;
    }
    // Read before the write: a waiter sees the write (and stops waiting) inside `put`.
    const owed = owedBy(opts.node, run, step.emit, waiting.has(run.sandbox_id));
    const marked = { ...run, owed };
    await records.put(marked);
    return pay(marked);
  };
  const pay = (run: SandboxRunRecord): Promise<SandboxRunRecord> => payOwed(bus, records, run, now);
  /** Does what this node's records still owe (a node cut between a store and its event, or a failed publish). */
  const payAll = async (): Promise<void> => {
    for (const run of records.all()) {
      const id = run.sandbox_id;
      if (run.owed?.by !== opts.node || launching.has(id)) continue;
      await serial(id, async () => {
        const current = records.get(id);
        if (current?.owed?.by === opts.node) await pay(current);
      }).catch((err: unknown) =>
        logger.warn({ err, sandbox_id: id }, 'sandbox run event or wake not sent; retried next tick'),
      );
    }
  };

  const watch = (id: string): Promise<void> =>
    serial(id, async () => {
      const run = records.get(id);
      if (!run || run.node !== opts.node || !isLive(run)) return;
      const at = now().toISOString();
      if (run.workdir === null) {
        // Recorded as launching, but the launch never finished (the node stopped mid-way).
        if (!launching.has(id)) {
          // What the cut launch left running (its setup step, say, after a kill -9) ends with it.
          await backend.stopLeft([id]);
          await apply(run, { type: 'run.failed', error: 'the launch was cut by a restart', at });
        }
        return;
      }
      const seen = await backend.observe({ workdir: run.workdir, pid: run.pid });
      if (run.status === 'resumed' && run.answer !== null && seen.question !== null) {
        // The answer was recorded but its delivery cut: deliver it again.
        await backend.answer({ workdir: run.workdir, pid: run.pid }, run.answer, run.updated_at);
        return;
      }
      if (seen.result || seen.gone !== null) {
        // An agent may report its result and go on, or outlive its wrapper: an ended run leaves nothing running.
        await backend.stop({ workdir: run.workdir, pid: run.pid });
      }
      if (seen.result) {
        const r = seen.result;
        await apply(
          run,
          r.status === 'done'
            ? { type: 'run.finished', summary: r.summary, total_tokens: r.total_tokens, at }
            : {
                type: 'run.failed',
                error: r.error ?? (r.summary || 'the coding agent reported failure'),
                at,
              },
        );
      } else if (seen.gone !== null) await apply(run, { type: 'run.failed', error: seen.gone, at });
      else if (seen.question) await apply(run, { type: 'run.asked', ...seen.question, at });
    });

  const launching = new Set<string>();
  /** Launches in progress: a setup may run for minutes, holding the run's chain (a cancel, a stop wait on it). */
  const aborts = new Map<string, AbortController>();
  const abortOf = (abort: AbortController): LaunchAbort | null =>
    abort.signal.aborted ? (abort.signal.reason as LaunchAbort) : null;
  /** Writes a run's tallied export counts, unless another record took them along meanwhile. */
  const flush = (id: string): Promise<unknown> =>
    serial(id, async () => {
      const counts = tally.take(id);
      const run = records.get(id);
      if (counts && run && isLive(run))
        await apply(run, { type: 'run.telemetry', counts, at: now().toISOString() });
    });
  /**
   * Stores a live run again once its newest record is a day old: the stream is trimmed below the oldest
   * record still needed (sandbox.records.ts), so a run that sits still for weeks must not hold that back.
   */
  const stale = (id: string): boolean => now().getTime() - (records.storedAt(id) ?? Infinity) >= REFRESH_MS;
  const refresh = async (id: string): Promise<void> => {
    if (!stale(id)) return;
    await serial(id, async () => {
      const run = records.get(id);
      if (run && isLive(run) && stale(id)) await records.put(run);
    });
  };
  const tick = async (): Promise<void> => {
    await payAll();
    // A launch holds its run's chain through its setup (minutes, maybe): waiting on it here would leave
    // every other run unwatched that long. Its counts ride on its launched record; it is watched after.
    for (const id of tally.due(now().getTime()))
      if (!launching.has(id)) await flush(id).catch(() => undefined);
    const mine = records
      .all()
      .filter((r) => r.node === opts.node && isLive(r) && !launching.has(r.sandbox_id));
    for (const run of mine) {
      try {
        await refresh(run.sandbox_id);
        await watch(run.sandbox_id);
      } catch (error) {
        logger.warn({ err: error, sandbox_id: run.sandbox_id }, 'sandbox watch failed; retried next tick');
      }
    }
    // Another node's live run its node left a month ago, gone from the fleet, ends here (sandbox.lost.ts).
    await endLostRuns(records, opts.node, now().getTime(), opts.roster, ({ run, at, error }) =>
      serial(run.sandbox_id, async () => {
        if (records.get(run.sandbox_id) === run) await apply(run, { type: 'run.failed', error, at });
      }),
    ).catch((err: unknown) => logger.warn({ err }, 'lost sandbox runs not ended; retried next tick'));
  };
  let timer: NodeJS.Timeout | null = null;
  const loop = (): void => {
    if (stopped) return;
    timer = setTimeout(() => void tick().finally(loop), pollMs);
  };
  loop();
  stopLostRuns(records, opts.node, backend);
  // An ended run of this node leaves nothing running, even where the node died before its stop was done:
  // the SIGKILL a stop owed after its grace to what ignored the SIGTERM (one pass over the processes).
  const ended = records.all().filter((run) => run.node === opts.node && !isLive(run));
  void backend
    .stopLeft(ended.map((run) => run.sandbox_id))
    .catch((err: unknown) => logger.warn({ err }, 'ended sandbox runs not stopped'));
  // A run of this node another node ended on the records (lost while the node was away, the record landing
  // after the start above) stops here the moment the record arrives: its records say it is over.
  const offEnded = records.onChange((run, origin) => {
    if (origin !== 'followed' || run.node !== opts.node || isLive(run) || run.workdir === null) return;
    const { workdir, pid } = run;
    logger.info({ sandbox_id: run.sandbox_id, status: run.status }, 'sandbox run ended elsewhere; stopped');
    void serial(run.sandbox_id, () => backend.stop({ workdir, pid })).catch((err: unknown) =>
      logger.warn({ err, sandbox_id: run.sandbox_id }, 'sandbox run ended elsewhere not stopped'),
    );
  });

  const answers: Subscription = serveCommand(bus, Commands.sandbox.answerAt(opts.node), (body) =>
    supervisor.answer(body.sandbox_id, body.seat, body.answer),
  );
  const cancels: Subscription = serveCommand(bus, Commands.sandbox.cancelAt(opts.node), (body) =>
    supervisor.cancel(body.sandbox_id, body.by, body.reason),
  );
  // A seat an applied document gives no sandbox acts no more: its runs here end (sandbox.withdraw.ts).
  const withdrawals = opts.hasSandbox
    ? startWithdrawals({ ...opts, hasSandbox: opts.hasSandbox, cancel: (...a) => supervisor.cancel(...a) })
    : null;

  const supervisor: SandboxSupervisor = {
    launch(req) {
      return serial(req.sandbox_id, async () => {
        const known = records.get(req.sandbox_id);
        if (known) return known;
        const at = now().toISOString();
        const { record, env } = launchStart(req, opts.node, opts, at);
        launching.add(req.sandbox_id);
        const abort = new AbortController();
        aborts.set(req.sandbox_id, abort);
        try {
          let run = await apply(null, { type: 'run.launch', run: record });
          if (run === null) throw new Error('the run could not be recorded');
          try {
            const launched = await backend.launch({
              sandbox_id: req.sandbox_id,
              task: req.task,
              settings: req.settings,
              env,
              signal: abort.signal,
            });
            run = (await apply(run, { type: 'run.launched', ...launched, at: now().toISOString() })) ?? run;
            // Cancelled as the agent started: stopped like any cancelled run (a stopping node leaves it to a restart).
            if (abortOf(abort)?.kind === 'cancel') await backend.stop(launched);
          } catch (error) {
            const message =
              abortOf(abort)?.kind === 'stop'
                ? 'the launch was cut by a stop of its node'
                : error instanceof Error
                  ? error.message
                  : String(error);
            if (abortOf(abort)?.kind !== 'cancel')
              run =
                (await apply(run, {
                  type: 'run.failed',
                  error: message.slice(0, 2_000),
                  at: now().toISOString(),
                })) ?? run;
          }
          const cancel = abortOf(abort);
          if (cancel?.kind === 'cancel') {
            logger.info(
              { sandbox_id: req.sandbox_id, by: cancel.by },
              'sandbox run cancelled while launching',
            );
            run =
              (await apply(run, {
                type: 'run.cancelled',
                by: cancel.by,
                reason: cancel.reason,
                at: now().toISOString(),
              })) ?? run;
          }
          return run;
        } finally {
          launching.delete(req.sandbox_id);
          aborts.delete(req.sandbox_id);
        }
      });
    },

    answer(sandboxId, seat, answer) {
      return serial(sandboxId, async (): Promise<SandboxAnswerReply> => {
        const run = records.get(sandboxId);
        if (!run || run.node !== opts.node)
          return { ok: false, error: 'unknown_run', message: `no coding run ${sandboxId} is watched here` };
        if (run.agent_handle !== seat)
          return {
            ok: false,
            error: 'not_owner',
            message: `run ${sandboxId} belongs to ${run.agent_handle}`,
          };
        if (run.status !== 'awaiting_clarification' || run.workdir === null)
          return {
            ok: false,
            error: 'no_question',
            message: `run ${sandboxId} is ${run.status}: it asks nothing`,
          };
        const at = now().toISOString();
        const next = await apply(run, { type: 'run.answered', answer, at });
        await backend.answer({ workdir: run.workdir, pid: run.pid }, answer, at);
        return { ok: true, status: next?.status ?? run.status };
      });
    },

    cancel(sandboxId, by, reason) {
      const pending = aborts.get(sandboxId);
      // A launch holds the run's chain until its setup ends: it is aborted first, then recorded cancelled.
      const aborted = pending !== undefined && abortOf(pending) === null;
      if (aborted) pending.abort({ kind: 'cancel', by, reason } satisfies LaunchAbort);
      return serial(sandboxId, async (): Promise<SandboxCancelReply> => {
        const run = records.get(sandboxId);
        if (aborted && run?.status === 'cancelled') return { ok: true, run: publicRun(run), changed: true };
        if (!run || run.node !== opts.node)
          return { ok: false, error: 'unknown_run', message: `no coding run ${sandboxId} is watched here` };
        if (run.status === 'cancelled') return { ok: true, run: publicRun(run), changed: false };
        if (!isLive(run))
          return {
            ok: false,
            error: 'ended',
            message: `coding run ${sandboxId} already ended ${run.status}`,
          };
        if (run.workdir !== null) await backend.stop({ workdir: run.workdir, pid: run.pid });
        const at = now().toISOString();
        logger.info({ sandbox_id: sandboxId, by }, 'sandbox run cancelled');
        const next = await apply(run, { type: 'run.cancelled', by, reason, at });
        return { ok: true, run: publicRun(next ?? run), changed: true };
      });
    },

    settle(sandboxId, signal) {
      const current = records.get(sandboxId);
      if (!current || settled(current) || signal?.aborted) return Promise.resolve(current ?? null);
      waiting.set(sandboxId, (waiting.get(sandboxId) ?? 0) + 1);
      logger.info({ sandbox_id: sandboxId, status: current.status }, 'sandbox run awaited');
      return new Promise((resolve) => {
        const done = (run: SandboxRunRecord | null): void => {
          off();
          signal?.removeEventListener('abort', onAbort);
          const n = (waiting.get(sandboxId) ?? 1) - 1;
          if (n <= 0) waiting.delete(sandboxId);
          else waiting.set(sandboxId, n);
          resolve(run);
        };
        const onAbort = (): void => done(records.get(sandboxId) ?? null);
        const off = records.onChange((run) => {
          if (run.sandbox_id === sandboxId && settled(run)) done(run);
        });
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    },

    queued: () => chains.size,

    telemetry(run, signal, spans) {
      // Counted by the node that watches the run (its records are written there alone).
      if (run.node === opts.node && isLive(run)) tally.add(run.sandbox_id, signal, spans);
    },

    async stop() {
      stopped = true;
      offEnded();
      if (timer) clearTimeout(timer);
      // A setup step can run for minutes: the stop cuts it rather than wait.
      for (const abort of aborts.values())
        if (!abort.signal.aborted) abort.abort({ kind: 'stop' } satisfies LaunchAbort);
      await answers.stop();
      await cancels.stop();
      await withdrawals?.stop();
      for (const id of tally.pending()) void flush(id).catch(() => undefined);
      await Promise.all([...chains.values()]);
    },
  };
  return supervisor;
}
