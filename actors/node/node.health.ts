/**
 * Probe answers computed from the node's state and live facts (spec "Probes"). Pure functions: the
 * host gathers the facts, these decide status, posture and the not-ready reason precedence.
 */
import type { HealthEnvelope, NodeOnlyHealth, NotReady, Posture, Readiness } from '../../schema/index.js';

/** What the node machine says, flattened. */
export interface NodeView {
  readonly phase: 'booting' | 'unconfigured' | 'serving' | 'draining' | 'stopped';
  readonly configured: boolean;
  readonly posture: Posture;
  /**
   * The posture the node's last concluded apply (or its lag) left: `posture`, except while an apply runs
   * (`wait`), when it is the posture that apply started from. What the configuration alarms read.
   */
  readonly concludedPosture: Posture;
  readonly appliedEpoch: number;
}

/** Facts fixed for the life of the process. */
export interface NodeIdentity {
  readonly node: string;
  readonly version: string;
  readonly startedAt: string;
  readonly queue: HealthEnvelope['queue'];
  readonly roles: readonly string[];
  readonly ingress: boolean;
  readonly eventHistorySeconds: number;
  readonly spendHistorySeconds: number;
}

/** Facts that change while serving; later subsystems fill what they own. */
export interface LiveFacts {
  readonly inFlight: number;
  readonly clients: number;
  readonly seats: readonly string[];
  /** False when the bus engine has lost its broker. */
  readonly brokerLinked: boolean;
  /** Live presence leases in the fleet; null when unreadable. */
  readonly nodes: number | null;
  /** This node's own presence lease; null while presence does not exist. */
  readonly presence: boolean | null;
  readonly admissionWithheld: boolean;
  readonly stallLagSeconds: number | null;
  readonly alarms: { count: number; worst?: string } | null;
  readonly unprovenSeconds: Readonly<Record<string, number>>;
  readonly seededFrom: HealthEnvelope['seeded_from'];
}

export const emptyLiveFacts: LiveFacts = {
  inFlight: 0,
  clients: 0,
  seats: [],
  brokerLinked: true,
  nodes: null,
  presence: null,
  admissionWithheld: false,
  stallLagSeconds: null,
  alarms: null,
  unprovenSeconds: {},
  seededFrom: { nodes: [], complete: true },
};

const diverged = new Set<Posture>(['shed', 'stuck', 'isolated']);
const shuttingDown = (view: NodeView): boolean => view.phase === 'draining' || view.phase === 'stopped';

/**
 * Health `status` precedence: shutting_down, unconfigured, diverged posture, ok. A node whose bus has lost
 * its broker cannot reach its streams: it reads `isolated`, never `ok` (ops/fleet.md "Alarms").
 */
export function healthStatus(view: NodeView, brokerLinked = true): HealthEnvelope['status'] {
  if (shuttingDown(view)) return 'shutting_down';
  if (!view.configured) return 'unconfigured';
  if (diverged.has(view.posture)) return view.posture as 'shed' | 'stuck' | 'isolated';
  if (!brokerLinked) return 'isolated';
  return 'ok';
}

/**
 * The posture the configuration alarms read (ops/fleet.md "Alarms"): the one the last concluded apply left,
 * so `apply_isolated`, `apply_stuck` and `node_shed` end when an apply succeeds, not while a later one runs
 * (`wait`) and may fail again, nor while the node drains (its restart takes them up); none before boot.
 */
export function alarmedPosture(view: NodeView): Posture | null {
  return view.phase === 'booting' ? null : view.concludedPosture;
}

/** The health envelope: the full one on an ingress node, the node half plus roles elsewhere. */
export function buildHealth(
  view: NodeView,
  id: NodeIdentity,
  live: LiveFacts,
): HealthEnvelope | NodeOnlyHealth {
  const node = {
    status: healthStatus(view, live.brokerLinked),
    node: id.node,
    configured: view.configured,
    version: id.version,
    started_at: id.startedAt,
    queue: id.queue,
    in_flight: live.inFlight,
    shutting_down: shuttingDown(view),
    posture: view.posture,
    applied_epoch: view.appliedEpoch,
    seats: [...live.seats],
    ...(live.stallLagSeconds !== null && live.stallLagSeconds > 0
      ? { stall_lag_seconds: live.stallLagSeconds }
      : {}),
    ...(live.nodes !== null ? { nodes: live.nodes } : {}),
    ...(live.alarms ? { alarms: live.alarms.count > 0 ? live.alarms : { count: 0 } } : {}),
    ...(Object.keys(live.unprovenSeconds).length > 0
      ? { unproven_seconds: { ...live.unprovenSeconds } }
      : {}),
  };
  if (!id.ingress) return { ...node, roles: [...id.roles] };
  return {
    ...node,
    clients: live.clients,
    event_history_seconds: id.eventHistorySeconds,
    spend_history_seconds: id.spendHistorySeconds,
    seeded_from: live.seededFrom,
  };
}

/** `/ready`: the first failing reason in the spec's precedence for this node's roles. */
export function readiness(view: NodeView, id: NodeIdentity, live: LiveFacts): Readiness {
  const reason = id.ingress ? ingressReason(view, live) : workerReason(view, live);
  if (reason === null) return { ready: true };
  const answer: NotReady = {
    ready: false,
    node: id.node,
    configured: view.configured,
    draining: shuttingDown(view),
    posture: view.posture,
    reason: reason.reason,
    ...(reason.detail ? { detail: reason.detail } : {}),
  };
  return answer;
}

type Reason = { reason: NotReady['reason']; detail?: string } | null;

function ingressReason(view: NodeView, live: LiveFacts): Reason {
  if (shuttingDown(view)) return { reason: 'draining', detail: 'the node is shutting down' };
  // Without its streams an ingress node can neither store a write nor see one: out of rotation.
  if (!live.brokerLinked) return { reason: 'broker_unlinked', detail: 'the node cannot reach its streams' };
  if (view.phase === 'booting') return { reason: 'unconfigured', detail: 'the node is still booting' };
  if (!view.configured) return { reason: 'unconfigured', detail: 'no configuration revision is active yet' };
  // `wait` and `isolated` still answer ready on an ingress node.
  if (view.posture === 'shed' || view.posture === 'stuck') {
    return { reason: view.posture, detail: `configuration posture is ${view.posture}` };
  }
  // Two processes answer for one node id: neither is the node the fleet knows (ops/fleet.md).
  if (live.admissionWithheld) return withheld;
  return null;
}

const withheld = {
  reason: 'admission_withheld',
  detail: 'another process writes this node id (a duplicate node id); withheld until its record expires',
} as const;

function workerReason(view: NodeView, live: LiveFacts): Reason {
  if (shuttingDown(view)) return { reason: 'draining', detail: 'the node is shutting down' };
  if (!live.brokerLinked) return { reason: 'broker_unlinked', detail: 'the bus engine has lost its broker' };
  if (view.phase === 'booting' || !view.configured) {
    return { reason: 'unconfigured', detail: 'no configuration revision is active yet' };
  }
  if (view.posture === 'shed' || view.posture === 'stuck') {
    return { reason: view.posture, detail: `configuration posture is ${view.posture}` };
  }
  if (live.presence === false) return { reason: 'no_presence', detail: 'this node holds no presence lease' };
  if (live.admissionWithheld) return withheld;
  return null;
}
