/**
 * The read models of one node (agents, memory, tokens, budgets, sandboxes, org, seats, tools):
 *   1. an `org` subsystem applier: every config apply hands the opened document to the models, which
 *      re-send the config-derived sections (rule 7);
 *   2. a boot seed before the listener binds (rule 2): events of the 30-day history (agent events bound
 *      to the newest three turns per seat), spend records of the last 92 days; then the live tails, plus
 *      the stream-only `agent_turn_progress` subject;
 *   3. the shared 5-second tick (rule 5) that ages the spend window and pushes what changed.
 */
import type { Logger } from 'pino';
import type { SubsystemApplier } from '../actors/index.js';
import { Streams, Subjects, type Bus, type Subscription } from '../bus/index.js';
import { readModelRoutes, readQuestions, type Question, type RouteDef } from '../http/index.js';
import {
  activeRevision,
  ReadModels,
  seedBound,
  type ConfigView,
  type MemoryStoreReader,
  type SnapshotSection,
} from '../projections/index.js';
import { EventRecord } from '../schema/index.js';

const tickMs = 5_000;
const eventSeedMs = 30 * 86_400_000;
const spendSeedMs = 92 * 86_400_000;
const decoder = new TextDecoder();

function decode(data: Uint8Array): unknown {
  try {
    return JSON.parse(decoder.decode(data));
  } catch {
    return null;
  }
}

export interface ReadModelsWiring {
  readonly models: ReadModels;
  /** Give it to `startConfiguration({ subsystems })`. */
  readonly applier: SubsystemApplier;
  readonly questions: ReadonlyMap<string, Question>;
  routes(): RouteDef[];
  /** For the snapshot registry (CONTRACTS.md 7). */
  sections(): SnapshotSection[];
  /** Seeds from the streams and follows them; resolves once seeded. */
  start(opts: { bus: Bus; view: ConfigView }): Promise<void>;
  stop(): Promise<void>;
}

export function createReadModels(opts: {
  nodeId: string;
  logger: Logger;
  /** The tool catalogue (CONTRACTS.md 5); empty until the tool-server manager is wired. */
  tools?: () => readonly unknown[];
  /** From the fleet's lease table; every seat placed until leases are wired. */
  placed?: (handle: string) => boolean;
  /** The seats' personal memory store (the turn engine's `PersonalMemory`). */
  memoryStore?: MemoryStoreReader;
}): ReadModelsWiring {
  const { logger } = opts;
  const models = new ReadModels({
    nodeId: opts.nodeId,
    // The events hub re-sends seats, org and tools on every revision_applied (rule 7).
    pushConfigSections: false,
    ...(opts.tools ? { tools: opts.tools } : {}),
    ...(opts.placed ? { placed: opts.placed } : {}),
    ...(opts.memoryStore ? { memoryStore: opts.memoryStore } : {}),
  });
  let view: ConfigView | null = null;
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
  };

  async function seedEvents(bus: Bus): Promise<void> {
    const info = await bus.streamInfo(Streams.Events);
    const agentEvents: EventRecord[] = [];
    if (info.lastSeq > 0) {
      for await (const msg of bus.replay(Streams.Events, {
        since: new Date(Date.now() - eventSeedMs),
        toSeq: info.lastSeq,
      })) {
        const parsed = EventRecord.safeParse(decode(msg.data));
        if (!parsed.success) continue;
        if (
          parsed.data.type.startsWith('agent_') ||
          ['llm_unavailable', 'budget_exhausted', 'turn.guard_breach'].includes(parsed.data.type)
        )
          agentEvents.push(parsed.data);
        else models.applyEvent(parsed.data);
      }
    }
    // Turn completions are always folded (the activity log); phase records only of the newest turns.
    const kept = new Set(seedBound(agentEvents));
    for (const e of agentEvents) if (kept.has(e) || e.type === 'agent_turn_completed') models.applyEvent(e);
    subs.push(
      await bus.follow(Streams.Events, { fromSeq: info.lastSeq + 1 }, (msg) =>
        models.applyEvent(decode(msg.data)),
      ),
    );
    subs.push(
      bus.subscribe(Subjects.event('agent_turn_progress'), (msg) => models.applyEvent(decode(msg.data))),
    );
  }

  async function seedSpend(bus: Bus): Promise<void> {
    const info = await bus.streamInfo(Streams.Spend);
    if (info.lastSeq > 0) {
      for await (const msg of bus.replay(Streams.Spend, {
        since: new Date(Date.now() - spendSeedMs),
        toSeq: info.lastSeq,
      }))
        models.applySpend(decode(msg.data));
    }
    models.markSpendSeeded();
    subs.push(
      await bus.follow(Streams.Spend, { fromSeq: info.lastSeq + 1 }, (msg) =>
        models.applySpend(decode(msg.data)),
      ),
    );
  }

  return {
    models,
    applier,
    questions: readQuestions(models),
    routes: () => readModelRoutes(models),
    sections: () => models.sections(),
    async start(start) {
      view = start.view;
      // A failed seed read costs history only (rule 2): log it and serve what there is.
      await seedEvents(start.bus).catch((err: unknown) =>
        logger.error({ err }, 'read models: event seed failed'),
      );
      await seedSpend(start.bus).catch((err: unknown) =>
        logger.error({ err }, 'read models: spend seed failed'),
      );
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
      for (const sub of subs.splice(0)) await sub.stop();
    },
  };
}
