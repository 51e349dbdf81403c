/**
 * A sandbox supervisor over the real local backend as the supervisor tests run it (polling every 25 ms),
 * and the launch they ask of it.
 */
import type { Logger } from 'pino';
import {
  localBackend,
  startSandboxSupervisor,
  type SandboxRecords,
  type SandboxSupervisor,
} from '../../../actors/index.js';
import type { Bus } from '../../../bus/index.js';

export function superviseLocally(opts: {
  readonly bus: Bus;
  readonly records: SandboxRecords;
  /** Where the runs' directories go. */
  readonly root: string;
  readonly logger: Logger;
  /** Default node-0. */
  readonly node?: string;
  readonly now?: () => Date;
  /** The fleet's live nodes (default: unknown, so no run of another node is taken as lost). */
  readonly roster?: () => Promise<readonly string[] | null>;
}): SandboxSupervisor {
  return startSandboxSupervisor({
    bus: opts.bus,
    node: opts.node ?? 'node-0',
    records: opts.records,
    backend: localBackend({ root: opts.root }),
    logger: opts.logger,
    otlpUrl: null,
    mcpUrl: null,
    pollMs: 25,
    ...(opts.now ? { now: opts.now } : {}),
    ...(opts.roster ? { roster: opts.roster } : {}),
  });
}

/** A launch of run `id` for seat bob, its agent `command`. */
export const launchOf = (id: string, command: string) => ({
  sandbox_id: id,
  seat: 'bob',
  role: 'Bob',
  agent_id: 'bob',
  turn_id: 'turn-1',
  trace_id: 'f'.repeat(32),
  task: 'hold',
  work_item: null,
  coding_agent: 'fake',
  settings: { setup: [] as string[], env: {}, command },
});
