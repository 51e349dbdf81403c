/**
 * One node's seats in process for the seats benchmark, wired as `svc serve` wires them (the provider
 * registry, the tool router, the seats runtime and its `org`, `turn_engine` and inbox appliers) on a
 * bus the caller opens. Its one tool is `bench_echo`, a trivial in-process builtin whose own time is
 * measured around its run, so the benchmark can take it out of the engine's figure.
 */
import { pino } from 'pino';
import { z } from 'zod';
import {
  createProviderRegistry,
  createToolRouter,
  createToolServerManager,
  defineBuiltin,
  startSeatsRuntime,
  textResult,
  type SeatsRuntime,
} from '../../actors/index.js';
import { ensureCatalogue, Subjects, type Bus } from '../../bus/index.js';
import { Company, type InboxMessage } from '../../schema/index.js';

/** A company of `agents` agent seats in units of ten (each unit led by its first seat). */
export function benchCompany(llmBaseUrl: string, agents: number): Record<string, unknown> {
  const units: Array<Record<string, unknown>> = [];
  for (let u = 0; u * 10 < agents; u++) {
    const roles = [];
    for (let i = u * 10; i < Math.min(agents, u * 10 + 10); i++) {
      const handle = `s${String(i).padStart(4, '0')}`;
      roles.push({
        handle,
        name: `Seat ${i}`,
        goal: 'Echo what is asked',
        responsibilities: ['echo'],
        behavioral_guidelines: ['Be brief'],
      });
    }
    units.push({ name: `Unit ${u}`, type: 'team', lead: `s${String(u * 10).padStart(4, '0')}`, roles });
  }
  return {
    name: 'Bench',
    mission: 'Measure the turn engine',
    vision: 'Fast seats',
    policies: ['Be kind'],
    timezone: 'UTC',
    providers: {
      llm: { local: { type: 'openai-compatible', model: 'zero-1', base_url: llmBaseUrl } },
      llm_order: ['local'],
    },
    units,
    roles: [{ name: 'Hu', kind: 'human', contact: { operator_id: 'ops' } }],
  };
}

export interface SeatsNode {
  readonly runtime: SeatsRuntime;
  apply(doc: unknown): Promise<void>;
  /** Puts a wake on a seat's inbox. */
  wake(handle: string, summary: string): Promise<void>;
  /** `agent_turn_completed` records seen so far (core subscription). */
  completed(): number;
  /** Of those, the failed turns. */
  failed(): number;
  /** Resolves once `n` turns have completed in total. */
  waitCompleted(n: number): Promise<void>;
  /** Milliseconds spent inside `bench_echo` itself, and its calls. */
  tool(): { readonly ms: number; readonly calls: number };
  stop(): Promise<void>;
}

export async function startSeatsNode(bus: Bus): Promise<SeatsNode> {
  const logger = pino({ level: process.env['BENCH_LOG'] ?? 'silent' });
  const catalogue = await ensureCatalogue(bus);
  const registry = createProviderRegistry({ document: null, resolve: () => undefined });
  const manager = createToolServerManager({ logger, resolve: (name) => process.env[name] });
  let toolMs = 0;
  let toolCalls = 0;
  const echo = defineBuiltin({
    name: 'bench_echo',
    description: 'Echoes its text.',
    annotations: { readOnlyHint: true },
    delivers: null,
    args: z.object({ text: z.string() }),
    run: (_ctx, args) => {
      const t0 = performance.now();
      const result = textResult(`echo: ${args.text}`);
      toolMs += performance.now() - t0;
      toolCalls += 1;
      return Promise.resolve(result);
    },
  });
  const router = createToolRouter({ builtins: [echo], servers: manager, logger });
  const runtime = startSeatsRuntime({
    bus,
    coord: catalogue.coord,
    turnsDone: catalogue.turnsDone,
    nodeId: 'bench-0',
    logger,
    llm: registry,
    tools: router,
  });
  let done = 0;
  let failed = 0;
  const decoder = new TextDecoder();
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const sub = bus.subscribe(Subjects.event('agent_turn_completed'), (msg) => {
    done += 1;
    if ((JSON.parse(decoder.decode(msg.data)) as { failed?: unknown }).failed === true) failed += 1;
    for (const w of waiters.filter((w) => done >= w.n)) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
  });
  const encoder = new TextEncoder();
  let wakes = 0;
  return {
    runtime,
    async apply(raw) {
      const doc = Company.parse(raw);
      await registry.apply(doc);
      await runtime.turnEngine.apply(doc, null);
      await runtime.org.apply(doc, null);
      await runtime.inboxes.apply(doc, null);
    },
    async wake(handle, summary) {
      wakes += 1;
      const message: InboxMessage = {
        id: `wake-${wakes}-${handle}-${Date.now()}`,
        kind: 'mention',
        source: 'bench',
        received_at: new Date().toISOString(),
        trace_id: (wakes.toString(16) + '0'.repeat(32)).slice(0, 32),
        summary,
        payload: {},
      };
      await bus.publish(Subjects.agentInbox(handle), encoder.encode(JSON.stringify(message)));
    },
    completed: () => done,
    failed: () => failed,
    waitCompleted: (n) =>
      done >= n ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ n, resolve })),
    tool: () => ({ ms: toolMs, calls: toolCalls }),
    async stop() {
      await sub.stop();
      await runtime.stop();
      await manager.stop();
    },
  };
}
