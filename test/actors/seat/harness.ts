/**
 * A company on one node in process: the memory bus (optionally on a store dir, to restart; or another
 * engine), a local OpenAI-compatible server following a script, the provider registry as `svc serve`
 * wires it (its `provider_fallback` records published), real stdio tool servers with the personal memory
 * store, and the seats runtime with its `org` and `turn_engine` appliers. Waits are on stored records,
 * never sleeps.
 */
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import type { Test } from 'tap';
import {
  createMemoryStore,
  createSkillShelf,
  startSeatsRuntime,
  type MemoryStore,
  type ProviderRegistry,
  type SeatsRuntime,
  type SkillShelf,
} from '../../../actors/index.js';
import {
  Buckets,
  ensureCatalogue,
  openMemoryBus,
  Streams,
  type Bus,
  type Catalogue,
  type CatalogueOptions,
} from '../../../bus/index.js';
import { ReadModels } from '../../../projections/index.js';
import { Company, EventRecord, SpendRecord, type Tracer } from '../../../schema/index.js';
import { startProviders } from '../../../scripts/providers-wiring.js';
import { startToolServers, type ToolServers } from '../../../scripts/toolservers-wiring.js';
import { startLlmServer, type LlmServer } from '../../fixtures/llm/llm-server.js';
import type { Script } from '../../fixtures/llm/script.js';
import { echoServerPath } from '../../fixtures/mcp/servers.js';
import type { Captured } from '../toolservers/harness.js';
import { mentionWake, queueWake } from '../../harness/wake.js';
import { localProviders } from '../../fixtures/llm/providers.js';

export function company(llmBaseUrl: string, extra: Record<string, unknown> = {}): Company {
  return Company.parse({
    name: 'Acme',
    mission: 'Ship useful things',
    vision: 'Calm software',
    policies: ['Be kind'],
    timezone: 'UTC',
    providers: localProviders(llmBaseUrl),
    mcp_servers: [
      {
        name: 'files',
        command: process.execPath,
        args: [echoServerPath],
        env: { ECHO_NAME: 'files' },
        tool_prefix: 'files_',
      },
    ],
    units: [
      {
        name: 'Eng',
        type: 'team',
        lead: 'Ada',
        roles: [
          {
            name: 'Ada',
            goal: 'Keep the lights on',
            responsibilities: ['triage'],
            behavioral_guidelines: ['Be brief'],
          },
          { name: 'Bob', goal: 'Write code' },
        ],
      },
    ],
    roles: [
      { name: 'Cy', goal: 'Answer questions' },
      { name: 'Hu', kind: 'human', contact: { operator_id: 'ops' } },
    ],
    ...extra,
  });
}

export interface Harness {
  readonly bus: Bus;
  readonly catalogue: Catalogue;
  readonly llm: LlmServer;
  /** The provider registry (`snapshot()` is the `/credential-pool` answer). */
  readonly providers: ProviderRegistry;
  readonly runtime: SeatsRuntime;
  readonly tools: ToolServers;
  /** The seats' personal memory store (on the bus's `svc_memory` bucket). */
  readonly memory: MemoryStore;
  apply(doc: unknown): Promise<void>;
  wake(handle: string, id?: string, summary?: string): Promise<string>;
  events(type?: string): Promise<EventRecord[]>;
  spend(): Promise<SpendRecord[]>;
  /** Resolves with the first stored event matching. */
  waitFor(match: (e: EventRecord) => boolean, timeoutMs?: number): Promise<EventRecord>;
  /** Stops the seats and tool servers (not the bus or LLM server). */
  stopSeats(): Promise<void>;
}

const decode = (data: Uint8Array): unknown => JSON.parse(new TextDecoder().decode(data));

export async function startCompany(
  t: Test,
  opts: {
    script: Script;
    storeDir?: string;
    llm?: LlmServer;
    extra?: Record<string, unknown>;
    /** The seats' and providers' clock (turn stamps, budgets, deadlines, cooldowns); default the wall clock. */
    now?: () => Date;
    /** The memory bus's clock for stored time (record ages, KV TTL); default the wall clock. */
    storeClock?: () => number;
    /** Another engine instead of the memory bus (closed at teardown like it). */
    openBus?: () => Promise<Bus>;
    catalogue?: CatalogueOptions;
    /** Collects the node's log lines (tool-server stderr included) for tests that wait on them. */
    logs?: Captured;
    /** Live-view pacing of the seats (default the node's, 50 ms); 0 sends every change. */
    progressEveryMs?: number;
    /** The tool skills `skill_list` / `skill_read` read (absent: not offered). */
    skills?: SkillShelf;
    /** Seats synthesise skills into `svc_tool_skills` where the document's learning settings say so. */
    synthesis?: boolean;
    /** Seats keep counterparty profiles in `svc_counterparty` where the document's learning settings say so. */
    counterparty?: boolean;
    /** Seats reflect on their episodes into the personal memory where the document's learning settings say so. */
    reflection?: boolean;
    /** Learning seats keep an episode ledger in `svc_episodes` and run the episode lifecycle. */
    episodes?: boolean;
    /** The seats' tracer (turn and phase spans); default none. */
    tracer?: Tracer;
  },
): Promise<Harness> {
  const logger = opts.logs?.logger ?? pino({ level: process.env['TEST_LOG'] ? 'debug' : 'silent' });
  const bus = opts.openBus
    ? await opts.openBus()
    : await openMemoryBus({
        ...(opts.storeDir ? { storeDir: opts.storeDir } : {}),
        ...(opts.storeClock ? { clock: opts.storeClock } : {}),
      });
  const catalogue = await ensureCatalogue(bus, opts.catalogue);
  const llm = opts.llm ?? (await startLlmServer({ wire: 'openai', script: opts.script }));
  const doc = company(llm.baseUrl, opts.extra);
  const clock = opts.now;
  const registry = startProviders({
    bus,
    nodeId: 'node-0',
    logger,
    resolve: () => undefined,
    ...(clock ? { now: () => clock().getTime() } : {}),
  });
  const memory = createMemoryStore({ kv: catalogue.memory });
  const skillsKv = opts.synthesis ? await bus.kv({ name: Buckets.ToolSkills, history: 2 }) : null;
  const profilesKv = opts.counterparty ? await bus.kv({ name: Buckets.Counterparty, history: 1 }) : null;
  const episodesKv = opts.episodes ? await bus.kv({ name: Buckets.Episodes, history: 1 }) : null;
  const shelf =
    opts.skills ??
    (skillsKv ? createSkillShelf({ kv: skillsKv, places: () => [], variables: () => ({}) }) : undefined);
  const tools = startToolServers({
    bus,
    nodeId: 'node-0',
    logger,
    memory,
    ...(shelf ? { skills: shelf } : {}),
  });
  const runtime = startSeatsRuntime({
    bus,
    coord: catalogue.coord,
    turnsDone: catalogue.turnsDone,
    nodeId: 'node-0',
    logger,
    llm: registry,
    tools: tools.router,
    pausedRetryMs: 50,
    needs: tools.needs,
    learning: (handle) => tools.learning.enabled(handle),
    ...(skillsKv
      ? {
          synthesis: {
            settings: (handle: string) => tools.learning.synthesis(handle),
            promotes: (handle: string) => tools.learning.promotion(handle),
            skills: skillsKv,
          },
        }
      : {}),
    ...(profilesKv
      ? {
          counterparty: {
            enabled: (handle: string) => tools.learning.counterparty(handle),
            profiles: profilesKv,
          },
        }
      : {}),
    ...(opts.reflection
      ? { reflection: { settings: (handle: string) => tools.learning.reflection(handle), memory } }
      : {}),
    ...(episodesKv
      ? {
          episodes: {
            limits: (handle: string) => tools.learning.episodeLifecycle(handle),
            ledger: episodesKv,
          },
        }
      : {}),
    ...(opts.now ? { now: opts.now } : {}),
    ...(opts.progressEveryMs !== undefined ? { progressEveryMs: opts.progressEveryMs } : {}),
    ...(opts.tracer ? { tracer: opts.tracer } : {}),
  });
  let stopped = false;
  const stopSeats = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    await runtime.stop();
    await tools.stop();
  };
  t.teardown(async () => {
    await stopSeats();
    await bus.close();
    if (!opts.llm) await llm.close();
  });
  const apply = (raw: unknown): Promise<void> => applyCompany({ registry, tools, runtime }, raw);
  await apply(doc);

  const events = async (type?: string): Promise<EventRecord[]> => {
    const out: EventRecord[] = [];
    for await (const msg of bus.replay(Streams.Events)) {
      const record = EventRecord.parse(decode(msg.data));
      if (type === undefined || record.type === type) out.push(record);
    }
    return out;
  };
  return {
    bus,
    catalogue,
    llm,
    providers: registry,
    runtime,
    tools,
    memory,
    apply,
    async wake(handle, id = randomUUID(), summary = 'Please echo hi') {
      await queueWake(bus, handle, mentionWake(summary, { id }));
      return id;
    },
    events,
    async spend() {
      const out: SpendRecord[] = [];
      for await (const msg of bus.replay(Streams.Spend)) out.push(SpendRecord.parse(decode(msg.data)));
      return out;
    },
    waitFor: (match, timeoutMs = 20_000) =>
      new Promise((resolve, reject) => {
        let done = false;
        const timer = setTimeout(() => {
          done = true;
          void sub.then((s) => s.stop());
          reject(new Error('no matching event stored in time'));
        }, timeoutMs);
        const sub = bus.follow(Streams.Events, { fromSeq: 1 }, (msg) => {
          if (done) return;
          const record = EventRecord.parse(decode(msg.data));
          if (!match(record)) return;
          done = true;
          clearTimeout(timer);
          resolve(record);
          // The first records may arrive before `follow` has returned.
          setImmediate(() => void sub.then((s) => s.stop()));
        });
      }),
    stopSeats,
  };
}

/** The script of one clean turn: plan picks the echo tool, execute calls it then reports, review accepts. */
/** A document applied the way a node's apply runs the seats' subsystems: providers, tools, then the seats. */
export async function applyCompany(
  parts: {
    readonly registry: { apply(next: Company): Promise<void> };
    readonly tools: Pick<ToolServers, 'subsystem'>;
    readonly runtime: Pick<ReturnType<typeof startSeatsRuntime>, 'turnEngine' | 'org' | 'inboxes'>;
  },
  raw: unknown,
): Promise<void> {
  const next = Company.parse(raw);
  await parts.registry.apply(next);
  await parts.tools.subsystem.apply(next, null);
  await parts.runtime.turnEngine.apply(next, null);
  await parts.runtime.org.apply(next, null);
  await parts.runtime.inboxes.apply(next, null);
}

export const cleanTurn = [
  {
    kind: 'text' as const,
    text: '{"decision":"plan","steps":["echo hi"],"success_criteria":["hi was echoed"],"tools":["files_echo"]}',
    usage: { prompt_tokens: 100, completion_tokens: 20 },
  },
  {
    kind: 'tool_calls' as const,
    calls: [{ id: 'c1', name: 'files_echo', arguments: { text: 'hi' } }],
    usage: { prompt_tokens: 120, completion_tokens: 10 },
  },
  { kind: 'text' as const, text: 'I echoed hi.', usage: { prompt_tokens: 150, completion_tokens: 5 } },
  {
    kind: 'text' as const,
    text: '{"verdict":"done","notes":"criteria met"}',
    usage: { prompt_tokens: 90, completion_tokens: 8 },
  },
];

/** Read models holding the harness's company, ready to fold its records (as a node's would, or another's). */
export function readModelsFor(h: Pick<Harness, 'llm'>): ReadModels {
  const models = new ReadModels();
  models.setCompany(company(h.llm.baseUrl), 'rev-1');
  return models;
}
