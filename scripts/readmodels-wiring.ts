/**
 * The read models of one node (agents, memory, tokens, budgets, sandboxes, org, seats, tools):
 *   1. an `org` subsystem applier: every config apply hands the opened document to the models, which
 *      re-send the config-derived sections (rule 7);
 *   2. a boot seed before the listener binds (rule 2) through the projection runner
 *      (`projections/readmodels.boot.ts`): events of the 30-day history (agent events bound to the newest
 *      three turns per seat), spend records of the last 92 days and the seats' open questions from their
 *      logs (both checkpointed when a store is given); then
 *      the live tails, plus the stream-only `agent_turn_progress` subject (this node's own seats' frames
 *      are folded as they are made, through `localProgress`, and skipped there);
 *   3. the shared 5-second tick (rule 5) that ages the spend window and pushes what changed.
 */
import type { Logger } from 'pino';
import {
  readLearned,
  seatProfiles,
  watchPauses,
  type LocalProgress,
  type SubsystemApplier,
} from '../actors/index.js';
import { LiveOriginHeader, Subjects, type Bus, type Kv, type Subscription } from '../bus/index.js';
import { readModelRoutes, readQuestions, type Question, type RouteDef } from '../http/index.js';
import {
  activeRevision,
  decodeJson,
  readModelProjections,
  ReadModels,
  runProjectionsShared,
  type CheckpointStore,
  type ConfigView,
  type RunningProjection,
  type MemoryStoreReader,
  type SnapshotSection,
} from '../projections/index.js';
import type { Resolver } from '../schema/index.js';

const tickMs = 5_000;

export interface ReadModelsWiring {
  readonly models: ReadModels;
  /** Give it to `startConfiguration({ subsystems })`. */
  readonly applier: SubsystemApplier;
  readonly questions: ReadonlyMap<string, Question>;
  /**
   * The read routes, asking `questions`: the node's registry, which holds these questions once added
   * (and `agent` scattered across the fleet, http/scatter.merges.ts).
   */
  routes(questions: ReadonlyMap<string, Question>): RouteDef[];
  /** For the snapshot registry. */
  sections(): SnapshotSection[];
  /**
   * Seeds from the streams through the projection runner and follows them; resolves once seeded.
   * With `checkpoints` (the events subsystem's store), a read model that has a checkpoint resumes from it.
   */
  start(opts: { bus: Bus; view: ConfigView; checkpoints?: CheckpointStore | undefined }): Promise<void>;
  stop(): Promise<void>;
  /** Give it to this node's seats: their live-view frames fold here as they are made. */
  readonly localProgress: LocalProgress;
}

const profilesIn =
  (kv: Kv) =>
  (agentId: string): Promise<readonly unknown[]> =>
    seatProfiles(kv, agentId);

const skillsIn =
  (kv: Kv) =>
  async (agentId: string): Promise<readonly unknown[]> =>
    (await readLearned(kv, agentId)).skills;

export function createReadModels(opts: {
  nodeId: string;
  logger: Logger;
  /** The tool catalogue; empty until the tool-server manager is wired. */
  tools?: () => readonly unknown[];
  /** From the fleet's lease table; every seat placed until leases are wired. */
  placed?: (handle: string) => boolean;
  /** The seats' personal memory store (the turn engine's `PersonalMemory`). */
  memoryStore?: MemoryStoreReader;
  /** `${VAR}` lookup for the company timezone (secret store, then environment). */
  resolve?: Resolver;
  /** Whether the secret store answers a name (a timezone holding one is shown as written). */
  secret?: (name: string) => boolean;
  /** The coordination store, where each seat keeps its pause for as long as it lasts. */
  coord?: Kv;
  /** `svc_counterparty`, where each seat keeps its counterparty profiles. */
  counterparty?: Kv;
  /** `svc_tool_skills`, where each seat keeps its learned skills. */
  skills?: Kv;
}): ReadModelsWiring {
  const { logger } = opts;
  const models = new ReadModels({
    nodeId: opts.nodeId,
    // The events hub re-sends seats, org and tools on every revision_applied (rule 7).
    pushConfigSections: false,
    ...(opts.tools ? { tools: opts.tools } : {}),
    ...(opts.placed ? { placed: opts.placed } : {}),
    ...(opts.memoryStore ? { memoryStore: opts.memoryStore } : {}),
    ...(opts.resolve ? { resolve: opts.resolve } : {}),
    ...(opts.secret ? { secret: opts.secret } : {}),
    ...(opts.counterparty ? { profileStore: { profiles: profilesIn(opts.counterparty) } } : {}),
    ...(opts.skills ? { skillStore: { skills: skillsIn(opts.skills) } } : {}),
  });
  let view: ConfigView | null = null;
  let unlinkedSince: string | null = null;
  let unwatchLink: () => void = () => undefined;
  const revisionId = (): string | null => (view ? (activeRevision(view.state)?.revision_id ?? null) : null);
  const subs: Subscription[] = [];
  let tick: NodeJS.Timeout | null = null;

  const applier: SubsystemApplier = {
    name: 'org',
    apply: (next) => {
      models.setCompany(next, revisionId());
      return Promise.resolve();
    },
    rollback: (previous) => {
      models.setCompany(previous, revisionId());
      return Promise.resolve();
    },
    adopt: (current) => models.setCompany(current, revisionId()),
  };

  const running: Array<RunningProjection<unknown>> = [];

  /**
   * Boots the read-model projections (one per read model) through the runner (rule 2: before the listener binds), then the
   * stream-only progress subject, which no stream holds.
   */
  async function boot(bus: Bus, checkpoints: CheckpointStore | undefined): Promise<void> {
    // One read per stream for every read model that follows it (SVC_EVENTS, SVC_SPEND), not one each.
    // A question asked longer ago than the event history is known from the seat's own log
    // (`readmodels.seat_needs`); an unreadable or late record there is skipped, as the seat's own start
    // skips it.
    const projections = readModelProjections(models, Date.now, (seq, err) =>
      logger.warn({ err, seq }, 'read models: seat log record skipped'),
    ).all;
    try {
      running.push(
        ...(await runProjectionsShared({
          bus,
          projections,
          ...(checkpoints ? { checkpoints } : {}),
          logger: logger.child({ component: 'projection.readmodels' }),
        })),
      );
    } catch (err) {
      // A failed seed read costs history only (rule 2): log it and serve what there is.
      logger.error({ err, projections: projections.map((p) => p.name) }, 'read models: seed failed');
    }
    subs.push(
      bus.subscribe(Subjects.liveEvent('agent_turn_progress'), (msg) => {
        // This node's own frame: folded already, typed, as it went out.
        if (msg.headers[LiveOriginHeader] === opts.nodeId) return;
        models.applyEvent(decodeJson(msg.data));
      }),
    );
  }

  return {
    models,
    applier,
    localProgress: {
      node: opts.nodeId,
      fold: (record, payload) => models.foldProgress(record, payload),
    },
    questions: readQuestions(models),
    routes: (questions) =>
      readModelRoutes(questions, () =>
        unlinkedSince === null ? null : `bus unreachable since ${unlinkedSince}`,
      ),
    sections: () => models.sections(),
    async start(start) {
      view = start.view;
      // While the link is down no record reaches the read models: their answers say since when.
      if (!start.bus.linked()) unlinkedSince = new Date().toISOString();
      unwatchLink = start.bus.onLinkChange((linked) => {
        if (!linked) unlinkedSince ??= new Date().toISOString();
        else unlinkedSince = null;
      });
      // The boot's apply ran before the view was handed in (the configuration starts after the read models
      // are made), so it set the document with no revision: name the active one now (`/org`, snapshot `org`).
      const applied = models.companyModel.document;
      if (applied !== null) models.setCompany(applied, revisionId());
      // A pause older than the event history is known from the seat's own record only.
      if (opts.coord) {
        try {
          subs.push(await watchPauses(opts.coord, (handle, p) => models.pauseRecord(handle, p)));
        } catch (err) {
          // Rows then know the pauses the event history holds, as before the records were read.
          logger.error({ err }, 'read models: pause records unread');
        }
      }
      await boot(start.bus, start.checkpoints);
      models.tick();
      tick = setInterval(() => models.tick(), tickMs);
      tick.unref();
      logger.info(
        { seats: models.companyModel.seats.length, spend_window: models.window.size },
        'read models seeded',
      );
    },
    async stop() {
      if (tick) clearInterval(tick);
      unwatchLink();
      for (const sub of subs.splice(0)) await sub.stop();
      for (const projection of running.splice(0)) await projection.stop();
    },
  };
}
