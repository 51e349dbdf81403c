/**
 * The fleet surface (spec "Read routes": `/fleet`, `/fleet/broker`, the two removals): the presence
 * record every node keeps in the coordination store, and the answers built from it and from the broker.
 * Shapes beyond the spec's named fields are documented in ops/fleet.md ("The fleet routes").
 */
import { z } from 'zod';
import { Posture } from './health.js';

const instant = z.string().datetime({ offset: true });

/** Where a node keeps its stream estate: `dir` is `stream.store_dir`, null when nothing is on its disk. */
export const StoreLocation = z.object({
  engine: z.enum(['memory', 'jetstream', 'jetstream-embedded']),
  dir: z.string().nullable(),
});
export type StoreLocation = z.infer<typeof StoreLocation>;

/** How a seats node runs coding sandboxes (`sandbox.*` of its bootstrap file); null on other nodes. */
export const SandboxPosture = z
  .object({ isolation: z.enum(['process', 'bubblewrap']), network: z.enum(['host', 'none']) })
  .nullable();

const PostureValue = z.enum(Object.values(Posture) as [Posture, ...Posture[]]);

/**
 * A node's alarms as it last evaluated them (ops/fleet.md "Alarms"): how many, the worst severity (absent at
 * 0) and their names (`apply_stuck`, `budget_exhausted:seat:ada`), critical first, at most 16.
 */
export const NodeAlarms = z.object({
  count: z.number().int().nonnegative(),
  worst: z.enum(['critical', 'warning']).optional(),
  names: z.array(z.string()),
});
export type NodeAlarms = z.infer<typeof NodeAlarms>;

/**
 * A node's presence lease, `presence.<node>` in `svc_coord`: rewritten every renewal, removed on a
 * graceful stop; peers count it live until `expires_at`.
 */
export const NodePresence = z.object({
  node: z.string().min(1),
  /** One process of that node: a second process writing the same node id is a duplicate. */
  instance: z.string().min(1),
  roles: z.array(z.string()),
  labels: z.record(z.string(), z.string()).default({}),
  version: z.string(),
  started_at: instant,
  /** The configuration epoch this node has applied (0 before the first apply). */
  applied_epoch: z.number().int().nonnegative(),
  /** Its configuration posture as its `/health` reads it; absent in a record of an earlier release (null). */
  posture: PostureValue.nullable().default(null),
  /** Its alarms; null before its first evaluation, absent in a record of an earlier release (null). */
  alarms: NodeAlarms.nullable().default(null),
  store: StoreLocation,
  /** Absent in a record of an earlier release: read as unknown (null). */
  sandbox: SandboxPosture.default(null),
  /** Where its API listens; null when `api.port` is 0. */
  api: z.object({ host: z.string(), port: z.number().int().positive() }).nullable(),
  /** The machine and process writing it (a duplicate node id is told by them); absent in an earlier release. */
  host: z.string().nullable().default(null),
  pid: z.number().int().positive().nullable().default(null),
  renewed_at: instant,
  expires_at: instant,
});
export type NodePresence = z.infer<typeof NodePresence>;

/** A lease as `/fleet` shows it (seat or singleton duty). */
export const FleetLease = z.object({
  node: z.string(),
  epoch: z.number().int().positive(),
  expires_at: instant,
});

/** Another process writing a node's id (a duplicate node id), as its own record last showed it. */
const FleetDuplicate = z.object({
  instance: z.string(),
  host: z.string().nullable(),
  pid: z.number().int().positive().nullable(),
  api: z.object({ host: z.string(), port: z.number().int().positive() }).nullable(),
  started_at: instant,
  renewed_at: instant,
  expires_at: instant,
});

/** One live node of `GET /fleet`. */
export const FleetNode = z.object({
  id: z.string(),
  roles: z.array(z.string()),
  labels: z.record(z.string(), z.string()),
  version: z.string(),
  started_at: instant,
  applied_epoch: z.number().int().nonnegative(),
  /** As the node last announced it in its presence record; null from an earlier release. */
  posture: PostureValue.nullable(),
  /** As the node last announced them; null before its first evaluation or from an earlier release. */
  alarms: NodeAlarms.nullable(),
  store: StoreLocation,
  sandbox: SandboxPosture,
  api: z.object({ host: z.string(), port: z.number().int().positive() }).nullable(),
  renewed_at: instant,
  expires_at: instant,
  /** Seat handles whose live lease this node holds. */
  seats: z.array(z.string()),
  /** Singleton duties whose live lease this node holds. */
  duties: z.array(z.string()),
  /** The process the row shows (the earliest started of those writing the id) and where it runs. */
  instance: z.string().optional(),
  host: z.string().nullable().optional(),
  pid: z.number().int().positive().nullable().optional(),
  /** Present only while other live processes write this node id: each of them (ops/fleet.md). */
  duplicates: z.array(FleetDuplicate).optional(),
});
export type FleetNode = z.infer<typeof FleetNode>;

export const FleetAnswer = z.object({
  /** The node that answered. */
  node: z.string(),
  read_at: instant,
  /** False while the presence table is not readable (the node's view is not yet loaded or stale). */
  complete: z.boolean(),
  /** Live nodes (presence not expired), by id. */
  nodes: z.array(FleetNode),
  /** Every seat with a live lease: handle → holder. */
  seats: z.record(z.string(), FleetLease),
  /** Every singleton duty with a live lease: duty → holder. */
  duties: z.record(z.string(), FleetLease),
  /** Presence records past their expiry still stored: nodes that died (candidates for removal). */
  expired: z.array(z.object({ node: z.string(), expired_at: instant })),
});
export type FleetAnswer = z.infer<typeof FleetAnswer>;

// ------------------------------------------------------------------ broker

/** One server as the broker reports it. */
export const BrokerPeer = z.object({
  name: z.string(),
  /** The raft peer id (`/fleet/broker/remove-peer/{peer}` takes it, or the name); null when not reported. */
  peer_id: z.string().nullable(),
  /** Caught up with its leader; null where the report says nothing (a leader). */
  current: z.boolean().nullable(),
  offline: z.boolean(),
  /** Since its last contact with the leader, ms; null when not reported. */
  active_ms: z.number().nullable(),
});
export type BrokerPeer = z.infer<typeof BrokerPeer>;

export const BrokerServer = BrokerPeer.extend({
  /** Streams (and buckets) whose copy it leads, and copies it holds in all. */
  leads: z.number().int().nonnegative(),
  copies: z.number().int().nonnegative(),
  /**
   * Present when the streams could not be listed now and the server is the last report's: when this
   * node read that report, and how old it is (ms). Absent on a fresh report.
   */
  last_reported_at: instant.optional(),
  report_age_ms: z.number().int().nonnegative().optional(),
  /** Why this node holds the server lost: its link to it dropped (reconnecting, or on another server now). */
  link_lost: z.string().optional(),
});
export type BrokerServer = z.infer<typeof BrokerServer>;

export const BrokerStream = z.object({
  name: z.string(),
  /** Copies the stream is configured with. */
  replicas: z.number().int().positive(),
  leader: z.string().nullable(),
  /** The other copies. */
  followers: z.array(BrokerPeer),
});
export type BrokerStream = z.infer<typeof BrokerStream>;

export const BrokerDisagreement = z.object({
  kind: z.enum(['count', 'offline', 'lagging', 'leaderless', 'under_replicated']),
  detail: z.string(),
  server: z.string().optional(),
  stream: z.string().optional(),
});
export type BrokerDisagreement = z.infer<typeof BrokerDisagreement>;

export const BrokerMembership = z.object({
  engine: z.enum(['memory', 'jetstream', 'jetstream-embedded']),
  /** The server this node is connected to (`local` on the memory engine). */
  server: z.string(),
  cluster: z.string().nullable(),
  /** What the connected server advertises to clients: its cluster's client addresses (INFO `connect_urls`). */
  advertised: z.object({ servers: z.array(z.string()) }),
  reported: z.object({
    /** The JetStream meta group, when this client's account may read it; null otherwise. */
    meta: z
      .object({
        leader: z.string().nullable(),
        cluster_size: z.number().int().nullable(),
        peers: z.array(BrokerPeer),
      })
      .nullable(),
    /** Why `meta` is null. */
    meta_unavailable: z.string().optional(),
    /** Every server named by the meta group or by a stream's copies, by name. */
    servers: z.array(BrokerServer),
    streams: z.array(BrokerStream),
    /**
     * Why the streams could not be listed (the broker is unreachable, or its meta group electing): `streams`
     * is then empty and `servers` the last report's, aged (empty when none was read yet).
     */
    unavailable: z.string().optional(),
  }),
  disagreements: z.array(BrokerDisagreement),
});
export type BrokerMembership = z.infer<typeof BrokerMembership>;

/** What the broker said to a peer removal (a refusal is a result, not an exception). */
export type PeerRemoval =
  | { readonly removed: true; readonly server: string }
  | {
      readonly removed: false;
      /** `unknown_peer`: not a member; `refused`: the broker said no; `unanswered`: nobody answered for it. */
      readonly reason: 'unknown_peer' | 'refused' | 'unanswered';
      readonly detail: string;
    };

// ------------------------------------------------------------------ removals

/** A live lease that keeps a node from being removed without `force`. */
export const LiveLease = z.object({
  kind: z.enum(['presence', 'seat', 'duty']),
  name: z.string(),
  expires_at: instant,
});
export type LiveLease = z.infer<typeof LiveLease>;

/** The answer of a removal that went through. */
export const RemovedNode = z.object({
  removed: z.string(),
  forced: z.boolean(),
  /** Records deleted: `presence.<node>`, `seats.member.<node>`. */
  deleted: z.array(z.string()),
  /** Leases still live (only with force): they end at their expiry, never cut short. */
  leases: z.array(LiveLease),
});
export type RemovedNode = z.infer<typeof RemovedNode>;

export type NodeRemoval =
  | { readonly outcome: 'removed'; readonly answer: RemovedNode }
  | { readonly outcome: 'unknown' }
  | { readonly outcome: 'live'; readonly leases: readonly LiveLease[] };
