/**
 * Runs the node machine for this process and answers the probes from it. Later subsystems (config
 * apply, presence, seats) feed it events and live facts; the gateway only reads.
 */
import { createActor, type SnapshotFrom } from 'xstate';
import type { Logger } from 'pino';
import type { HealthEnvelope, NodeOnlyHealth, Readiness } from '../../schema/index.js';
import {
  buildHealth,
  emptyLiveFacts,
  readiness,
  type LiveFacts,
  type NodeIdentity,
  type NodeView,
} from './node.health.js';
import { nodeMachine, type NodeEvent } from './node.machine.js';

export interface NodeHost {
  send(event: NodeEvent): void;
  view(): NodeView;
  health(live?: Partial<LiveFacts>): HealthEnvelope | NodeOnlyHealth;
  ready(live?: Partial<LiveFacts>): Readiness;
  draining(): boolean;
  configured(): boolean;
  /** Resolves once the machine reaches `stopped`. */
  stopped(): Promise<void>;
}

export function startNodeHost(identity: NodeIdentity, logger: Logger): NodeHost {
  const actor = createActor(nodeMachine).start();
  let last = viewOf(actor.getSnapshot());
  actor.subscribe((snapshot) => {
    const next = viewOf(snapshot);
    if (next.phase !== last.phase || next.posture !== last.posture) {
      logger.info(
        { phase: next.phase, posture: next.posture, applied_epoch: next.appliedEpoch },
        'node state',
      );
    }
    last = next;
  });
  const stopped = new Promise<void>((resolve) => {
    actor.subscribe({ complete: () => resolve() });
  });
  const facts = (live?: Partial<LiveFacts>): LiveFacts => ({ ...emptyLiveFacts, ...live });
  return {
    send: (event) => actor.send(event),
    view: () => viewOf(actor.getSnapshot()),
    health: (live) => buildHealth(viewOf(actor.getSnapshot()), identity, facts(live)),
    ready: (live) => readiness(viewOf(actor.getSnapshot()), identity, facts(live)),
    draining: () => {
      const phase = viewOf(actor.getSnapshot()).phase;
      return phase === 'draining' || phase === 'stopped';
    },
    configured: () => actor.getSnapshot().context.configured,
    stopped: () => stopped,
  };
}

/** Flattens a snapshot: inside `serving` the child state is the posture. */
export function viewOf(snapshot: SnapshotFrom<typeof nodeMachine>): NodeView {
  const value = snapshot.value;
  const phase = (typeof value === 'string' ? value : Object.keys(value)[0]) as NodeView['phase'];
  const posture = typeof value === 'object' && 'serving' in value ? value.serving : snapshot.context.posture;
  return {
    phase,
    configured: snapshot.context.configured,
    posture,
    appliedEpoch: snapshot.context.appliedEpoch,
  };
}
