/**
 * What the placement tests share: two or more seats runtimes on one memory bus stand for `seats` nodes,
 * each agent seat a lease in `svc_coord`, with a scripted model behind every turn.
 */
import { pino, type Logger } from 'pino';
import type { Test } from 'tap';
import {
  createMemoryStore,
  createProviderRegistry,
  startSeatsRuntime,
  type SeatsRuntime,
} from '../../../actors/index.js';
import {
  ensureCatalogue,
  openMemoryBus,
  Streams,
  type Bus,
  type Catalogue,
  type Kv,
} from '../../../bus/index.js';
import type { Company } from '../../../schema/index.js';
import { EventRecord } from '../../../schema/index.js';
import { startToolServers } from '../../../scripts/toolservers-wiring.js';
import { startLlmServer, type LlmServer } from '../../fixtures/llm/llm-server.js';
import type { Step } from '../../fixtures/llm/script.js';
import { applyCompany, company } from './harness.js';
import { mentionWake, queueWake } from '../../harness/wake.js';

const logger = pino({ level: process.env['TEST_LOG'] ? 'debug' : 'silent' });
const decode = (data: Uint8Array): unknown => JSON.parse(new TextDecoder().decode(data));
/** A model answer that ends a turn at once: the script fills up with it. */
export const skip = {
  kind: 'text' as const,
  text: '{"decision":"skip"}',
  usage: { prompt_tokens: 10, completion_tokens: 2 },
};

export interface Fleet {
  readonly bus: Bus;
  readonly catalogue: Catalogue;
  readonly llm: LlmServer;
  readonly doc: Company;
  node(id: string, lease: { ttlMs: number; renewEveryMs?: number }, opts?: NodeOptions): Promise<Node>;
  wake(handle: string): Promise<string>;
  /** The first stored event matching (waits for it). */
  waitFor(match: (e: EventRecord) => boolean): Promise<EventRecord>;
  events(type: string): Promise<EventRecord[]>;
}

/** What one node sees of the shared bus and store (a test wraps them to hold a step), and its admission. */
export interface NodeOptions {
  readonly bus?: Bus;
  readonly coord?: Kv;
  readonly admitted?: () => boolean;
  readonly logger?: Logger;
}

export interface Node {
  readonly runtime: SeatsRuntime;
  apply(doc: unknown): Promise<void>;
  /** Resolves once the node's hosts are exactly `handles`. */
  runs(handles: string[]): Promise<void>;
}

/** A shared memory bus and a scripted model; `node()` starts one more seats runtime on them. */
export async function startFleet(t: Test, first: Step[] = []): Promise<Fleet> {
  const bus = await openMemoryBus({});
  const catalogue = await ensureCatalogue(bus);
  const llm = await startLlmServer({
    wire: 'openai',
    script: [...first, ...Array.from({ length: 20 }, () => skip)],
  });
  const doc = company(llm.baseUrl, { mcp_servers: [] });
  const stops: (() => Promise<void>)[] = [];
  t.teardown(async () => {
    for (const stop of stops.reverse()) await stop();
    await bus.close();
    await llm.close();
  });
  return {
    bus,
    catalogue,
    llm,
    doc,
    async node(id, lease, opts = {}) {
      const registry = createProviderRegistry({ document: doc, resolve: () => undefined });
      const tools = startToolServers({
        bus,
        nodeId: id,
        logger,
        memory: createMemoryStore({ kv: catalogue.memory }),
      });
      const runtime = startSeatsRuntime({
        bus: opts.bus ?? bus,
        coord: opts.coord ?? catalogue.coord,
        turnsDone: catalogue.turnsDone,
        nodeId: id,
        logger: opts.logger ?? logger,
        llm: registry,
        tools: tools.router,
        lease,
        ...(opts.admitted ? { admitted: opts.admitted } : {}),
      });
      stops.push(async () => {
        await runtime.stop();
        await tools.stop();
      });
      return {
        runtime,
        apply: (raw) => applyCompany({ registry, tools, runtime }, raw),
        runs: (handles) =>
          new Promise((resolve) => {
            const want = [...handles].sort().join();
            const check = (): boolean => runtime.seats().sort().join() === want;
            if (check()) return resolve();
            runtime.onSeatsChanged(() => {
              if (check()) resolve();
            });
          }),
      };
    },
    async wake(handle) {
      const message = mentionWake('Anything to do?');
      await queueWake(bus, handle, message);
      return message.trace_id;
    },
    waitFor: (match) =>
      new Promise((resolve) => {
        let done = false;
        const sub = bus.follow(Streams.Events, { fromSeq: 1 }, (msg) => {
          if (done) return;
          const record = EventRecord.parse(decode(msg.data));
          if (!match(record)) return;
          done = true;
          resolve(record);
          setImmediate(() => void sub.then((s) => s.stop()));
        });
      }),
    async events(type) {
      const out: EventRecord[] = [];
      for await (const msg of bus.replay(Streams.Events)) {
        const record = EventRecord.parse(decode(msg.data));
        if (record.type === type) out.push(record);
      }
      return out;
    },
  };
}

export const completedOf = (trace: string) => (e: EventRecord) =>
  e.type === 'agent_turn_completed' && e.trace_id === trace;
export const nodeOf = (e: EventRecord): string => e.source.split('/')[0]!;
