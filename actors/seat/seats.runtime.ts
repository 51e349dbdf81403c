/**
 * The seats of this node: the `org` subsystem of every apply spawns a host for each new agent seat,
 * terminates removed ones (a kind flipped to human counts as removed) and swaps changed definitions;
 * the `turn_engine` subsystem hands new limits to every seat (running turns keep theirs). Human seats
 * never get a host, an inbox consumer or a model call. Also answers the pause and resume commands.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Logger } from 'pino';
import { Subjects, type Bus, type Kv, type Subscription } from '../../bus/index.js';
import { SeatCommandVerb, SeatPause, SeatResume, type SeatCommandReply } from '../../schema/index.js';
import type { SubsystemApplier } from '../config/index.js';
import type { NeedsBoard } from '../memory/index.js';
import { createBudget, type Budget } from './budget.js';
import { turnLimits, type TurnLimits } from './seat.limits.js';
import { companyOf, type Company } from './seat.profile.js';
import { startSeatHost, type SeatHost } from './seat.host.js';
import type { TurnDeps } from './turn.deps.js';

export interface SeatsRuntimeOptions {
  readonly bus: Bus;
  readonly coord: Kv;
  readonly nodeId: string;
  readonly logger: Logger;
  readonly llm: TurnDeps['llm'];
  readonly tools: TurnDeps['tools'];
  /** Seats whose hosts run here (the seats this node holds); default all. */
  readonly runsSeat?: (handle: string) => boolean;
  readonly now?: () => Date;
  readonly pausedRetryMs?: number;
  /** What `ask_human` recorded, merged into each turn's completion. */
  readonly needs?: NeedsBoard;
  /** Whether a seat learns (records episodes); default never. */
  readonly learning?: (handle: string) => boolean;
}

export interface SeatsRuntime {
  /** `org`: spawn, terminate, swap. */
  readonly org: SubsystemApplier;
  /** `turn_engine`: limits for the next turns. */
  readonly turnEngine: SubsystemApplier;
  /**
   * Opens the inboxes of seats spawned by this apply. Give it last (named `restart_required`, it runs
   * after the providers and the tool servers), so a queued wake never meets a half-applied node.
   */
  readonly inboxes: SubsystemApplier;
  readonly budget: Budget;
  /** Handles with a running host on this node. */
  seats(): string[];
  host(handle: string): SeatHost | null;
  stop(): Promise<void>;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function startSeatsRuntime(opts: SeatsRuntimeOptions): SeatsRuntime {
  const log = opts.logger.child({ component: 'seats' });
  const now = opts.now ?? (() => new Date());
  let company: Company = companyOf(null);
  let limits: TurnLimits = turnLimits(undefined);
  const hosts = new Map<string, SeatHost>();
  const budget = createBudget({
    kv: opts.coord,
    timezone: () => company.timezone,
    now: () => now().getTime(),
  });
  const spend = async (record: Parameters<TurnDeps['spend']>[0]): Promise<void> => {
    await opts.bus.publish(Subjects.spend('llm'), encoder.encode(JSON.stringify(record)), {
      msgId: record.id,
    });
  };
  const deps: Omit<TurnDeps, 'events'> = {
    node: opts.nodeId,
    llm: opts.llm,
    tools: opts.tools,
    budget,
    spend,
    now,
  };
  let chain = Promise.resolve();
  const serial = <T>(work: () => Promise<T>): Promise<T> => {
    const next = chain.then(work);
    chain = next.then(
      () => undefined,
      () => undefined,
    );
    return next;
  };

  async function reconcile(document: unknown): Promise<void> {
    const next = companyOf(document);
    const prior = company;
    company = next;
    const wanted = new Set([...next.seats.keys()].filter((h) => opts.runsSeat?.(h) ?? true));
    // 1. terminate removed seats (and those flipped to human)
    for (const [handle, host] of [...hosts]) {
      if (wanted.has(handle)) continue;
      hosts.delete(handle);
      await host.stop();
      log.info({ seat: handle }, 'seat decommissioned');
    }
    // 2. spawn new seats, 3. swap changed definitions
    for (const handle of wanted) {
      const profile = next.seats.get(handle);
      if (!profile) continue;
      const host = hosts.get(handle);
      if (host) {
        if (!isDeepStrictEqual(prior.seats.get(handle), profile)) host.update(profile);
        continue;
      }
      hosts.set(
        handle,
        await startSeatHost({
          bus: opts.bus,
          coord: opts.coord,
          nodeId: opts.nodeId,
          logger: log,
          deps,
          company: () => company,
          limits,
          profile,
          ...(opts.pausedRetryMs !== undefined ? { pausedRetryMs: opts.pausedRetryMs } : {}),
          ...(opts.needs ? { needs: opts.needs } : {}),
          ...(opts.learning ? { learning: opts.learning } : {}),
        }),
      );
      log.info({ seat: handle, agent_id: profile.agent_id }, 'seat spawned');
    }
  }

  const org: SubsystemApplier = {
    name: 'org',
    apply: (next) => serial(() => reconcile(next)),
    rollback: (previous) => serial(() => reconcile(previous)),
  };
  const setLimits = (document: unknown): Promise<void> => {
    const doc =
      document !== null && typeof document === 'object' ? (document as Record<string, unknown>) : {};
    limits = turnLimits(doc['turn_engine']);
    for (const host of hosts.values()) host.send({ type: 'seat.settings', limits });
    return Promise.resolve();
  };
  const turnEngine: SubsystemApplier = { name: 'turn_engine', apply: setLimits, rollback: setLimits };
  const openAll = (): Promise<void> =>
    serial(async () => {
      for (const host of hosts.values()) await host.open();
    });
  const inboxes: SubsystemApplier = { name: 'restart_required', apply: openAll, rollback: openAll };

  // Pause and resume: a seat unknown here (or a human seat) is not_found.
  const findSeat = (id: string): SeatHost | null => {
    const direct = hosts.get(id);
    if (direct) return direct;
    const byName = [...company.seats.values()].find((s) => s.name === id);
    return byName ? (hosts.get(byName.handle) ?? null) : null;
  };
  const answer = (reply: SeatCommandReply): Uint8Array => encoder.encode(JSON.stringify(reply));
  const notFound = (seat: string): Uint8Array =>
    answer({ ok: false, error: 'not_found', detail: `no agent seat ${seat} runs on this node` });
  const subs: Subscription[] = [
    opts.bus.reply(Subjects.command('seats', SeatCommandVerb.Pause), (msg) => {
      const cmd = SeatPause.parse(JSON.parse(decoder.decode(msg.data)));
      const host = findSeat(cmd.seat);
      if (!host) return Promise.resolve(notFound(cmd.seat));
      const paused = {
        by: cmd.by,
        at: now().toISOString(),
        reason: cmd.reason,
        stop_running: cmd.stop_running,
      };
      host.send({ type: 'seat.pause', paused });
      return Promise.resolve(answer({ ok: true, handle: host.handle, paused }));
    }),
    opts.bus.reply(Subjects.command('seats', SeatCommandVerb.Resume), (msg) => {
      const cmd = SeatResume.parse(JSON.parse(decoder.decode(msg.data)));
      const host = findSeat(cmd.seat);
      if (!host) return Promise.resolve(notFound(cmd.seat));
      host.send({
        type: 'seat.resume',
        by: cmd.by,
        at: now().toISOString(),
        ...(cmd.reason !== undefined ? { reason: cmd.reason } : {}),
      });
      return Promise.resolve(answer({ ok: true, handle: host.handle, paused: null }));
    }),
  ];

  return {
    org,
    turnEngine,
    inboxes,
    budget,
    seats: () => [...hosts.keys()],
    host: (handle) => hosts.get(handle) ?? null,
    stop: () =>
      serial(async () => {
        for (const sub of subs) await sub.stop();
        await Promise.all([...hosts.values()].map((h) => h.stop()));
        hosts.clear();
      }),
  };
}
