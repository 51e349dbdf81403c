/**
 * The events subsystem of one node: the events projection (replayed before the listener binds, then
 * following the live tail), its questions (`events`, `event`, `trace`, and the history questions read
 * from the same index: `event_series`, `turns`, `turn`, `phases`), the snapshot section registry with
 * the `health` and `events` sections, and the live stream hub. Other read models register their sections on
 * `sections` and their questions beside these.
 */
import type { Logger } from 'pino';
import { Streams, Subjects, type Bus, type Subscription } from '../bus/index.js';
import {
  eventRoutes,
  scatterFleet,
  StreamHub,
  type Question,
  type RouteDef,
  type ScatterOptions,
} from '../http/index.js';
import {
  decodeRecord,
  eventIdParam,
  eventSeries,
  eventsProjection,
  feedRows,
  getEvent,
  getTurn,
  listEvents,
  listPhases,
  listTurns,
  openCheckpoints,
  parseListQuery,
  parseSeriesQuery,
  runProjection,
  SectionRegistry,
  traceEvents,
  withTopic,
  type CheckpointStore,
  type EventsSource,
  type EventsState,
  type RunningProjection,
  type SeatHandleOf,
} from '../projections/index.js';
import { Coverage } from '../schema/index.js';

/** How many of the newest events the seed read asks each node for (spec "WebSocket and snapshot" 2). */
const SEED_EVENTS = 400;

/** Config-derived sections, re-sent whole on every config apply (spec rule 7). */
export const RESENT_ON_APPLY = ['seats', 'org', 'tools'] as const;

export interface EventsSubsystem {
  readonly projection: RunningProjection<EventsState>;
  /** The node's projection checkpoints (`stream.store_dir`), open until `stop`; other projections share it. */
  readonly checkpoints: CheckpointStore | undefined;
  readonly source: EventsSource;
  readonly sections: SectionRegistry;
  /** The node's question registry: `/query/{what}`, the route adapters and the socket's query channel. */
  readonly questions: ReadonlyMap<string, Question>;
  /**
   * Asks the questions `opts.merges` names of every live node (http/scatter.ts) and answers the peers'
   * asks; call once every subsystem added its questions. Returns the peers' responder.
   */
  scatter(opts: ScatterOptions): Subscription;
  /** Adds another subsystem's questions; a name answered twice is a wiring error. */
  addQuestions(more: ReadonlyMap<string, Question>): void;
  readonly hub: StreamHub;
  /**
   * Who answered the boot seed: this node alone until `seed()` ran, then the coverage of the seed read
   * (the newest 400 events asked of every live node, scattered).
   */
  seededFrom(): Coverage;
  /** The seed read (spec: seeded at start from every live data node); a failed read costs history only. */
  seed(logger: Logger): Promise<void>;
  routes(): RouteDef[];
  stop(): Promise<void>;
}

export interface EventsOptions {
  readonly bus: Bus;
  readonly node: string;
  readonly historySeconds: number;
  /** `stream.store_dir`: checkpoints are kept there; without it every boot replays from zero. */
  readonly storeDir?: string | undefined;
  /** The node's checkpoint store when the caller opened it (then the caller closes it, not `stop`). */
  readonly checkpoints?: CheckpointStore | undefined;
  /** The health envelope as pushed on the shared tick and carried by the snapshot. */
  readonly health: () => unknown;
  readonly logger: Logger;
  readonly healthIntervalMs?: number;
  /**
   * The company's seats as the node holds them now (the read models' roster), read at each question: the
   * seat filter takes a seat's agent id (UUID) as its handle. Without it only handles are read.
   */
  readonly seats?: () => ReadonlyArray<{ readonly handle: string; readonly agent_id: string | null }>;
}

/**
 * A seat's handle for its agent id in the roster; a seat whose handle is the text itself is that seat (a
 * handle is read before an agent id). Agent ids are lower-case UUIDs; compared lowercased all the same.
 */
function rosterHandleOf(seats: EventsOptions['seats']): SeatHandleOf | undefined {
  if (seats === undefined) return undefined;
  return (agentId) => {
    const roster = seats();
    if (roster.some((s) => s.handle === agentId)) return agentId;
    return roster.find((s) => s.agent_id?.toLowerCase() === agentId)?.handle;
  };
}

/** The history questions answered from the events index (ops/events.md "History questions"). */
export function historyQuestions(source: EventsSource): Map<string, Question> {
  return new Map<string, Question>([
    [
      'event_series',
      {
        guarded: false,
        answer: (params) =>
          eventSeries(source, parseSeriesQuery(params, source.historySeconds, source.seatHandle)),
      },
    ],
    ['turns', { guarded: false, answer: (params) => listTurns(source, params) }],
    ['turn', { guarded: false, answer: (params) => getTurn(source, params) }],
    ['phases', { guarded: false, answer: (params) => listPhases(source, params) }],
  ]);
}

export async function startEvents(opts: EventsOptions): Promise<EventsSubsystem> {
  const { bus, logger } = opts;
  const owned = !opts.checkpoints && opts.storeDir ? openCheckpoints(opts.storeDir) : undefined;
  const checkpoints: CheckpointStore | undefined = opts.checkpoints ?? owned;
  const sections = new SectionRegistry();
  const questions = new Map<string, Question>();
  const hub = new StreamHub({
    sections,
    questions,
    logger: logger.child({ component: 'stream' }),
    ...(opts.healthIntervalMs !== undefined ? { healthIntervalMs: opts.healthIntervalMs } : {}),
  });
  let projection: RunningProjection<EventsState> | null = null;
  try {
    projection = await runProjection({
      bus,
      projection: eventsProjection,
      ...(checkpoints ? { checkpoints } : {}),
      logger: logger.child({ component: 'projection.events' }),
      // A new feed row goes out as an `event` frame; non-feed and duplicate events push nothing. With no
      // dashboard connected the row is not decoded at all: the window keeps comparing it by its bytes.
      onLive: (state) => {
        if (state.lastAdded && hub.count() > 0) hub.push('event', withTopic(state.lastAdded.row), 'merge');
      },
    });
  } catch (error) {
    owned?.close();
    throw error;
  }
  const running = projection;
  const source: EventsSource = {
    state: () => running.state(),
    fetch: async (seq) => {
      const message = await bus.getMessage(Streams.Events, seq);
      return message ? decodeRecord(message.data) : null;
    },
    node: opts.node,
    historySeconds: opts.historySeconds,
    seatHandle: rosterHandleOf(opts.seats),
  };
  questions.set('events', {
    guarded: false,
    answer: (params) => listEvents(source, parseListQuery(params, source.seatHandle)),
  });
  questions.set('event', {
    guarded: false,
    answer: (params) => getEvent(source, eventIdParam(params)),
  });
  questions.set('trace', {
    guarded: false,
    answer: (params) => traceEvents(source, params.get('trace_id') ?? ''),
  });
  for (const [what, question] of historyQuestions(source)) questions.set(what, question);
  sections.register({ name: 'health', current: opts.health, subscribe: () => () => undefined });
  // Feed rows reach sockets as `event` frames; the section itself is read whole by the snapshot.
  sections.register({ name: 'events', current: () => feedRows(source), subscribe: () => () => undefined });
  const applied: Subscription = bus.subscribe(Subjects.configRevisionApplied, () =>
    hub.resend(RESENT_ON_APPLY),
  );
  hub.start();
  // Entries past the history floor can never be answered again: forget them now and then.
  const trim = setInterval(
    () => running.state().index.dropBefore(Date.now() - opts.historySeconds * 1000),
    10 * 60_000,
  );
  trim.unref();
  let seededFrom: Coverage = { nodes: [{ id: opts.node, answered: true }], complete: true };
  return {
    projection: running,
    checkpoints,
    source,
    sections,
    questions,
    scatter: (scatterOpts) => scatterFleet(questions, scatterOpts),
    addQuestions(more) {
      for (const [what, question] of more) {
        if (questions.has(what)) throw new Error(`question ${what} registered twice`);
        questions.set(what, question);
      }
    },
    hub,
    seededFrom: () => seededFrom,
    async seed(log) {
      try {
        const page = await questions
          .get('events')
          ?.answer(new URLSearchParams({ limit: String(SEED_EVENTS) }), { actor: null, log });
        const coverage = Coverage.safeParse((page as { coverage?: unknown } | undefined)?.coverage);
        if (coverage.success) seededFrom = coverage.data;
        for (const node of seededFrom.nodes)
          if (!node.answered)
            log.warn({ peer: node.id, error: node.error }, 'seed read failed; history only');
      } catch (error) {
        log.warn({ err: error }, 'seed read failed; history only');
      }
    },
    routes: () => eventRoutes({ questions, sections }),
    async stop() {
      clearInterval(trim);
      hub.close();
      await applied.stop();
      await running.stop();
      sections.close();
      owned?.close();
    },
  };
}
