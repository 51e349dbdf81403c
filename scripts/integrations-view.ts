/**
 * The integrations read model on one node: the projection runner folding SVC_INTEGRATIONS (arrival
 * counts, passes, passes in flight), with read-your-writes for the routes (`caughtUp`), a hook for
 * the integration actors, which rebuild their state from the same records, and, given a node id, the
 * compaction of the arrival records it folds (actors/integration/arrivals.rollup.ts).
 */
import type { Logger } from 'pino';
import { startArrivalRollups, type ArrivalRollups } from '../actors/index.js';
import { Streams, type Bus, type StoredMessage } from '../bus/index.js';
import {
  arrivalsOf,
  integrationsProjection,
  passTrims,
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
  /** The arrival records' compaction on this node, when started. */
  readonly rollups: ArrivalRollups | null;
  stop(): Promise<void>;
}

export async function followIntegrations(opts: {
  bus: Bus;
  /** The node's projection checkpoints (one store every projection shares; the caller closes it). */
  checkpoints?: CheckpointStore | undefined;
  logger?: Logger;
  /** Compacts the arrival records as this node (tests shorten the threshold and start no timer). */
  rollups?: {
    nodeId: string;
    threshold?: number;
    passThreshold?: number;
    everyMs?: number;
    now?: () => Date;
  };
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
  const rollups = opts.rollups
    ? startArrivalRollups({
        bus: opts.bus,
        // The pass records each kind holds past its kept runs, read with the same state.
        fold: {
          state: () => {
            const state = running.state();
            return { ...state, passTrims: passTrims(state) };
          },
          seq: () => running.seq(),
          until: (seq, timeoutMs) => running.until(seq, timeoutMs),
        },
        ...opts.rollups,
        ...(opts.logger ? { logger: opts.logger } : {}),
      })
    : null;
  return {
    running,
    rollups,
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
      await rollups?.stop();
      await running.stop();
    },
  };
}
