/**
 * The fleet subsystem of one node: its presence lease in `svc_coord`, the background fleet view the
 * probes and `GET /fleet` answer from, and the fleet routes (ops/fleet.md "The fleet routes").
 */
import type { Logger } from 'pino';
import {
  fleetAnswer,
  removeNode,
  startPresence,
  watchFleet,
  type PresenceDescription,
  type PresenceFacts,
} from '../actors/index.js';
import type { Bus, Kv } from '../bus/index.js';
import { fleetQuestions, fleetRoutes, type Question, type RouteDef } from '../http/index.js';
import type { SnapshotSection } from '../projections/index.js';
import { NodeRole, type NodeAlarms, type Posture, type TierA } from '../schema/index.js';
import { fleetPush } from './fleet-push.js';

export interface FleetSubsystem {
  /** The probe facts (`nodes`, `presence`, `admissionWithheld`), from memory. */
  facts(): PresenceFacts;
  routes(): RouteDef[];
  /** The `fleet` question (the dashboard's fleet room asks it over its socket). */
  readonly questions: ReadonlyMap<string, Question>;
  /** The socket's `fleet` push: a marker sent when this node's fleet view changes (scripts/fleet-push.ts). */
  readonly section: SnapshotSection;
  /** Live node ids as this node's fleet view holds them; null while it cannot vouch for the view (scatter reads). */
  roster(): Promise<string[] | null>;
  /** Removes this node's presence (a graceful stop) and stops the watches. */
  stop(): Promise<void>;
}

export async function startFleet(opts: {
  readonly bus: Bus;
  readonly coord: Kv;
  readonly config: TierA;
  readonly version: string;
  readonly startedAt: string;
  /** The configuration epoch this node has applied. */
  readonly appliedEpoch: () => number;
  /** The node's configuration posture, as its `/health` reads it. */
  readonly posture: () => Posture;
  /** The node's alarms; null before their first evaluation (the alarm host starts after the fleet). */
  readonly alarms: () => NodeAlarms | null;
  readonly logger: Logger;
}): Promise<FleetSubsystem> {
  const { config, coord } = opts;
  const view = await watchFleet(coord);
  const describe = (): PresenceDescription => ({
    roles: [...config.node.roles],
    labels: { ...config.node.labels },
    version: opts.version,
    started_at: opts.startedAt,
    applied_epoch: opts.appliedEpoch(),
    // A change is written within the presence look (250 ms): peers' `/fleet` tell a stuck node from a fresh one.
    posture: opts.posture(),
    alarms: opts.alarms(),
    store: { engine: config.providers.queue.type, dir: config.stream.store_dir ?? null },
    sandbox: config.node.roles.includes(NodeRole.Seats) ? { ...config.sandbox } : null,
    api: config.api.port > 0 ? { host: config.api.host, port: config.api.port } : null,
  });
  const presence = await startPresence({
    coord,
    view,
    nodeId: config.node.id,
    logger: opts.logger,
    bus: opts.bus,
    // Presence binds as long as a seat lease: a dead node leaves `/fleet` when its seats move.
    ttlMs: config.node.seat_lease_seconds * 1000,
    describe,
  });
  const fleet = () =>
    fleetAnswer({
      node: config.node.id,
      now: new Date(),
      view,
      complete: view.ready() && presence.facts().nodes !== null,
    });
  const push = fleetPush({ view, answer: fleet });
  return {
    facts: () => presence.facts(),
    section: push,
    questions: fleetQuestions({ fleet }),
    // Unread while this node cannot vouch for its view (its own renewal failing, or the watch behind):
    // a stale view would drop live peers from a read and call it complete.
    roster: () =>
      Promise.resolve(
        view.ready() && presence.facts().nodes !== null
          ? view.live(Date.now()).map((presence) => presence.node)
          : null,
      ),
    routes: () =>
      fleetRoutes({
        fleet,
        broker: () => opts.bus.brokerMembership(),
        removeNode: (node, force) => removeNode({ coord, node, force }),
        removePeer: (peer) => opts.bus.removeBrokerPeer(peer),
      }),
    stop: async () => {
      push.stop();
      await presence.stop();
      await view.stop();
    },
  };
}
