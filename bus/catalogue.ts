/**
 * The streams and KV buckets svc relies on (DESIGN.md table), created idempotently at boot with the
 * spec's retention: events 30 days, spend 181 days, configuration forever.
 */
import { Retention, type Bus, type Kv, type StreamInfo, type StreamSpec } from './bus.js';
import { Subjects } from './subjects.js';

export const Streams = {
  Config: 'SVC_CONFIG',
  Events: 'SVC_EVENTS',
  Spend: 'SVC_SPEND',
  Inbox: 'SVC_INBOX',
  Work: 'SVC_WORK',
  Pages: 'SVC_PAGES',
  /** Raw accepted webhook deliveries (audit, replay-safe); dedup by delivery id within a day. */
  Webhooks: 'SVC_WEBHOOKS',
  /** Raw wiki deliveries: deduplicated on (timestamp, page id, event type) for 5 minutes. */
  WebhooksWiki: 'SVC_WEBHOOKS_WIKI',
  /**
   * Turn journals: each turn's progress as it happens (phases, model answers, tool calls and results),
   * so a turn cut by a restart, a crash or a lost lease resumes from it instead of running again.
   */
  Turns: 'SVC_TURNS',
  /**
   * The integration actors' records: provisioning passes started and finished, webhook arrivals and their
   * rollups. No age limit: arrival counts and pass history are folds of it, and a node that joins later
   * must read the same counts as one that was there all along. Arrival records are summed into a rollup and
   * removed below it (actors/integration/arrivals.rollup.ts); the same compaction removes the pass records past
   * each kind's newest 100 runs, never an open pass.
   */
  Integrations: 'SVC_INTEGRATIONS',
  /**
   * Seat actors' own records (the questions a seat waits on) and their snapshots: a seat's state is
   * rebuilt from them when a node takes it up. Kept without age: an open question waits for its answer.
   */
  Seats: 'SVC_SEATS',
  /**
   * Detached coding runs' records (ops/sandboxes.md): each message the whole run as it now stands, the
   * newest per subject the run. No age limit, since a live run must never be dropped: the records layer
   * trims it below the oldest record still needed (ended runs are kept 30 days; sandbox.records.ts).
   */
  Sandbox: 'SVC_SANDBOX',
} as const;

/**
 * Streams whose records are removed by subject (a purge with a filter) while nodes read them. A read of
 * one of them, or of a whole stream, checks every gap in what it is given (bus/jetstream/reader.ts).
 */
export const subjectCompacted: ReadonlySet<string> = new Set([Streams.Integrations, Streams.Seats]);

export const Buckets = {
  Coord: 'svc_coord',
  Secrets: 'svc_secrets',
  /** One key per schedule firing (schedule, fire time, target): `create` makes a firing happen once. */
  ScheduleClaims: 'svc_schedule_claims',
  /** Wiki page id -> seat handles watching it (routing step 1; `@mentions` add to it). */
  WikiWatchers: 'svc_wiki_watchers',
  /** Seats' personal memory rows: one key per `<agent id>.<memory id>`, written by `memory_remember`. */
  Memory: 'svc_memory',
  /**
   * The knowledge base's page vectors for search by meaning: one key per page id, the vector of the page's
   * title and body at one revision (projections/pages/pages.vectors.ts), the latest only.
   */
  PageVectors: 'svc_page_vectors',
  /**
   * One key per completed turn (`<handle>.<turn id>`): a redelivered wake whose turn is here is
   * acknowledged without running again. Expires after TURNS_DONE_TTL_MS.
   */
  TurnsDone: 'svc_turns_done',
  /** One record per `POST /backup` request (key = backup id), the latest state only (ops/backups.md). */
  Backups: 'svc_backups',
  /**
   * Snapshots of the work tracker's state (`s<seq>.manifest` naming `s<seq>.<chunk>`): where a node starts
   * once the work log is trimmed (ops/work-tracker.md "Retention"). Each key is written once.
   */
  WorkSnapshots: 'svc_work_snapshots',
  /** Tool skills as last synced: one key per source (`native`, `wiki`, `tracker-b`), its whole set. */
  ToolSkills: 'svc_tool_skills',
  /** A seat's profiles of the people who wake it: `<agent id>.<person key>`, the latest only (actors/seat/counterparty.ts). */
  Counterparty: 'svc_counterparty',
  /** A seat's episode ledger: one key per seat (its agent id), what its episode lifecycle holds (actors/seat/episode.lifecycle.ts). */
  Episodes: 'svc_episodes',
  /**
   * One key per node: the alarms raised on it and not cleared (their `alarm_raised` payloads), so a restart
   * neither raises a standing alarm again nor forgets one that ended while it was down (actors/alarms/).
   */
  Alarms: 'svc_alarms',
} as const;

/** Claims only need to outlive any firing a scheduler could still consider (catchup looks back at most 2 h). */
export const SCHEDULE_CLAIMS_TTL_MS = 24 * 3600 * 1000;

/**
 * SVC_INBOX's duplicate window. A scheduler completing a firing its claimant left unfinished sends the
 * claimant's wake again (same id) up to 2 h (the widest catchup window) after the claim; the window
 * covers that with an hour to spare for clocks and slow stores, so a wake the claimant did store is
 * not stored twice. Wake ids are per cause, so no producer means a repeat as a new wake.
 */
export const INBOX_DEDUP_MS = 3 * 3600 * 1000;

/**
 * How long a completed turn keeps its wake from running again. The record matters only while that wake
 * can still be delivered, and a completed wake is acked right after its record is written; it comes back
 * only if (1) the ack was lost: redelivered after the seat consumer's 15 min ack wait; (2) the process
 * died between record and ack: redelivered when a node next opens the seat's inbox (a restart, or a peer
 * taking the seat once its 30 s lease lapses); (3) a producer repeated the wake after its own crash past
 * SVC_INBOX's 3 h duplicate window (INBOX_DEDUP_MS; the router's notifications are redelivered after 30 s). While the
 * fleet runs that is minutes; a week also covers a fleet left down for days. SVC_INBOX keeps wakes with
 * no age limit and no delivery cap, so no finite age covers a completed-but-unacked wake that waits
 * longer: that one would run a second time (README "Known limits").
 */
export const TURNS_DONE_TTL_MS = 7 * 24 * 3600 * 1000;

/** Webhook pipelines stored in SVC_WEBHOOKS (wiki has its own stream for its shorter dedup window). */
export const WEBHOOK_PIPELINES = [
  'tracker-a',
  'chat',
  'codehost-a',
  'codehost-b',
  'tracker-b',
  'monitor',
] as const;
/** How long a vendor's delivery id is remembered: vendors retry for hours, so a day. */
export const WEBHOOK_DEDUP_MS = 24 * 3600 * 1000;
/** Spec "Limits": wiki dedup TTL. */
export const WIKI_DEDUP_MS = 5 * 60 * 1000;
/** Raw deliveries are kept for audit as long as events. */
export const WEBHOOK_HISTORY_MS = 30 * 24 * 3600 * 1000;

/** `event_history_seconds` and `spend_history_seconds` of the spec. */
export const EVENT_HISTORY_SECONDS = 30 * 24 * 3600;
export const SPEND_HISTORY_SECONDS = 181 * 24 * 3600;

/** Contended keys keep at least this many records so the first claimer of the newest epoch is retained. */
export const COORD_HISTORY = 64;

export interface CatalogueOptions {
  readonly eventHistorySeconds?: number;
  readonly spendHistorySeconds?: number;
  /** Age of the completed-turn records; default TURNS_DONE_TTL_MS (tests shorten it). */
  readonly turnsDoneTtlMs?: number;
}

export interface Catalogue {
  readonly streams: readonly StreamInfo[];
  readonly coord: Kv;
  readonly secrets: Kv;
  readonly memory: Kv;
  /** `svc_page_vectors`: page id -> its vector at a revision, shared by the fleet. */
  readonly pageVectors: Kv;
  /** `svc_turns_done`: the exactly-once records of completed wakes, expiring after their window. */
  readonly turnsDone: Kv;
  readonly eventHistorySeconds: number;
  readonly spendHistorySeconds: number;
}

export function catalogueStreams(opts: CatalogueOptions = {}): StreamSpec[] {
  const events = opts.eventHistorySeconds ?? EVENT_HISTORY_SECONDS;
  const spend = opts.spendHistorySeconds ?? SPEND_HISTORY_SECONDS;
  return [
    { name: Streams.Config, subjects: [Subjects.config] },
    { name: Streams.Events, subjects: [Subjects.events], maxAgeMs: events * 1000 },
    { name: Streams.Spend, subjects: [Subjects.spendAll], maxAgeMs: spend * 1000 },
    {
      name: Streams.Inbox,
      subjects: [Subjects.agentInboxes],
      retention: Retention.WorkQueue,
      duplicateWindowMs: INBOX_DEDUP_MS,
    },
    { name: Streams.Work, subjects: [Subjects.workAll] },
    { name: Streams.Pages, subjects: [Subjects.pagesAll] },
    {
      name: Streams.Webhooks,
      subjects: WEBHOOK_PIPELINES.map((p) => Subjects.webhookDelivery(p)),
      maxAgeMs: WEBHOOK_HISTORY_MS,
      duplicateWindowMs: WEBHOOK_DEDUP_MS,
    },
    {
      name: Streams.WebhooksWiki,
      subjects: [Subjects.webhookDelivery('wiki')],
      maxAgeMs: WEBHOOK_HISTORY_MS,
      duplicateWindowMs: WIKI_DEDUP_MS,
    },
    { name: Streams.Integrations, subjects: [Subjects.integrationsAll] },
    // A journal matters only while its wake can come back: kept as long as the completed-turn records.
    {
      name: Streams.Turns,
      subjects: [Subjects.turnJournals],
      maxAgeMs: opts.turnsDoneTtlMs ?? TURNS_DONE_TTL_MS,
    },
    { name: Streams.Seats, subjects: [Subjects.seatLogs] },
    { name: Streams.Sandbox, subjects: [Subjects.sandboxRuns] },
  ];
}

/** Creates (or brings up to date) every stream and bucket; safe to run on every boot of every node. */
export async function ensureCatalogue(bus: Bus, opts: CatalogueOptions = {}): Promise<Catalogue> {
  const streams: StreamInfo[] = [];
  for (const spec of catalogueStreams(opts)) streams.push(await bus.ensureStream(spec));
  const coord = await bus.kv({ name: Buckets.Coord, history: COORD_HISTORY });
  const secrets = await bus.kv({ name: Buckets.Secrets, history: 16 });
  // Rows are written once under a fresh id and never contended: a short history is enough.
  const memory = await bus.kv({ name: Buckets.Memory, history: 4 });
  // A page's vector is replaced whole at each revision: only the latest matters.
  const pageVectors = await bus.kv({ name: Buckets.PageVectors, history: 1 });
  // Each key is written once (a plain put, never contended): one record of history.
  const turnsDone = await bus.kv({
    name: Buckets.TurnsDone,
    history: 1,
    ttlMs: opts.turnsDoneTtlMs ?? TURNS_DONE_TTL_MS,
  });
  return {
    streams,
    coord,
    secrets,
    memory,
    pageVectors,
    turnsDone,
    eventHistorySeconds: opts.eventHistorySeconds ?? EVENT_HISTORY_SECONDS,
    spendHistorySeconds: opts.spendHistorySeconds ?? SPEND_HISTORY_SECONDS,
  };
}
