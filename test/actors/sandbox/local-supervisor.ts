/** A sandbox supervisor over the real local backend as the supervisor tests run it (polling every 25 ms). */
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
  readonly now?: () => Date;
}): SandboxSupervisor {
  return startSandboxSupervisor({
    bus: opts.bus,
    node: 'node-0',
    records: opts.records,
    backend: localBackend({ root: opts.root }),
    logger: opts.logger,
    otlpUrl: null,
    mcpUrl: null,
    pollMs: 25,
    ...(opts.now ? { now: opts.now } : {}),
  });
}
