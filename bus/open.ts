/** Opens the bus engine a Tier A file names (`providers.queue.type`). */
import type { Logger } from 'pino';
import type { Bus, EngineKind } from './bus.js';
import { EngineUnavailableError } from './errors.js';
import { openMemoryBus } from './memory/index.js';

export interface OpenBusOptions {
  readonly type: EngineKind;
  readonly url?: string;
  readonly authToken?: string;
  readonly storeDir?: string;
  readonly replicas?: number;
  readonly logger?: Logger;
}

export async function openBus(opts: OpenBusOptions): Promise<Bus> {
  switch (opts.type) {
    case 'memory':
      return openMemoryBus({
        ...(opts.storeDir ? { storeDir: opts.storeDir } : {}),
        ...(opts.logger ? { logger: opts.logger } : {}),
      });
    case 'jetstream':
    case 'jetstream-embedded':
      throw new EngineUnavailableError(
        `the ${opts.type} engine is not available in this build; use providers.queue.type: memory`,
      );
  }
}
