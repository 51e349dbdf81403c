/**
 * The integrations read model on one node: the projection runner folding SVC_INTEGRATIONS (arrival
 * counts, passes, passes in flight), with read-your-writes for the routes (`caughtUp`) and a hook for
 * the integration actors, which rebuild their state from the same records.
 */
import type { Logger } from 'pino';
import { Streams, type Bus, type StoredMessage } from '../bus/index.js';
import {
  arrivalsOf,
  integrationsProjection,
  runProjection,
  type CheckpointStore,
  type IntegrationsState,
  type RunningProjection,
  type SurfaceCounts,
} from '../projections/index.js';

export interface IntegrationsView {
  state(): IntegrationsState;
  arrivals(surface: string): SurfaceCounts;
  /** Resolves once the fold holds everything the stream held when called (bounded by `timeoutMs`). */
  caughtUp(timeoutMs?: number): Promise<void>;
  /** Calls `listener` with every record folded after the boot replay; returns the unsubscribe. */
  onRecord(listener: (message: StoredMessage) => void): () => void;
  readonly running: RunningProjection<IntegrationsState>;
  stop(): Promise<void>;
}

export async function followIntegrations(opts: {
  bus: Bus;
  /** The node's projection checkpoints (one store every projection shares; the caller closes it). */
  checkpoints?: CheckpointStore | undefined;
  logger?: Logger;
}): Promise<IntegrationsView> {
  const checkpoints = opts.checkpoints;
  const listeners = new Set<(message: StoredMessage) => void>();
  const running = await runProjection({
    bus: opts.bus,
    projection: integrationsProjection,
    ...(checkpoints ? { checkpoints } : {}),
    ...(opts.logger ? { logger: opts.logger } : {}),
    onLive: (_state, message) => {
      for (const listener of listeners) listener(message);
    },
  });
  return {
    running,
    state: () => running.state(),
    arrivals: (surface) => arrivalsOf(running.state(), surface),
    async caughtUp(timeoutMs = 2_000) {
      const info = await opts.bus.streamInfo(Streams.Integrations);
      await running.until(info.lastSeq, timeoutMs);
    },
    onRecord(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async stop() {
      await running.stop();
    },
  };
}
