/** Opens the bus engine a Tier A file names (`providers.queue.type`). */
import type { Logger } from 'pino';
import type { Bus, EngineKind } from './bus.js';
import { EngineUnavailableError } from './errors.js';
import { openJetStreamBus, startEmbeddedNats } from './jetstream/index.js';
import { openMemoryBus } from './memory/index.js';

export interface OpenBusOptions {
  readonly type: EngineKind;
  /** NATS url(s) for `jetstream`. */
  readonly url?: string;
  readonly authToken?: string;
  /** `stream.store_dir`: the memory engine's SQLite store, or the embedded server's data. */
  readonly storeDir?: string;
  /**
   * Copies of each stream and bucket on JetStream (3 on a 3-node cluster). Default 1; other engines
   * refuse any other count. Existing streams are raised to it, never lowered.
   */
  readonly replicas?: number;
  readonly logger?: Logger;
  /**
   * Open only a store `storeDir` already holds (an audit reads one; it must never leave an empty store
   * behind a mistyped path). Refused with EngineUnavailableError naming the path when there is none.
   */
  readonly existingStore?: boolean;
}

/**
 * Opens the configured engine.
 * @example const bus = await openBus({ type: 'jetstream', url: 'nats://10.0.0.5:4222', replicas: 3 });
 */
export async function openBus(opts: OpenBusOptions): Promise<Bus> {
  // Only a JetStream cluster keeps copies: the in-process bus and the one local server keep one.
  if (opts.type !== 'jetstream' && opts.replicas !== undefined && opts.replicas !== 1) {
    throw new EngineUnavailableError(
      `providers.queue.replicas ${opts.replicas} needs providers.queue.type jetstream on a cluster; ${opts.type} keeps one copy`,
    );
  }
  switch (opts.type) {
    case 'memory':
      return openMemoryBus({
        ...(opts.storeDir ? { storeDir: opts.storeDir } : {}),
        ...(opts.existingStore ? { existingStore: true } : {}),
        ...(opts.logger ? { logger: opts.logger } : {}),
      });
    case 'jetstream':
      if (!opts.url) {
        throw new EngineUnavailableError(
          'providers.queue.type jetstream needs providers.queue.url (nats://host:port)',
        );
      }
      return openJetStreamBus({
        url: opts.url,
        ...(opts.authToken ? { authToken: opts.authToken } : {}),
        ...(opts.replicas ? { replicas: opts.replicas } : {}),
        ...(opts.logger ? { logger: opts.logger } : {}),
      });
    case 'jetstream-embedded': {
      if (!opts.storeDir) {
        throw new EngineUnavailableError('providers.queue.type jetstream-embedded needs stream.store_dir');
      }
      const server = await startEmbeddedNats({
        storeDir: opts.storeDir,
        ...(opts.existingStore ? { existingStore: true } : {}),
        ...(opts.logger ? { logger: opts.logger.child({ component: 'nats-server' }) } : {}),
      });
      try {
        return await openJetStreamBus(
          { url: server.url, ...(opts.logger ? { logger: opts.logger } : {}) },
          { engine: 'jetstream-embedded', onClose: () => server.stop() },
        );
      } catch (error) {
        await server.stop();
        throw error;
      }
    }
  }
}
