/**
 * Runs the node machine for this process and answers the probes from it. The config applier reports
 * activations and apply outcomes and performs the effects the machine names in answer; the gateway reads.
 */
import { createActor, type SnapshotFrom } from 'xstate';
import type { Logger } from 'pino';
import { Streams, Subjects, type Bus } from '../../bus/index.js';
import type { HealthEnvelope, NodeOnlyHealth, Readiness } from '../../schema/index.js';
import {
  buildHealth,
  emptyLiveFacts,
  readiness,
  type LiveFacts,
  type NodeIdentity,
  type NodeView,
} from './node.health.js';
import { emptyNodeHistory, foldNodeHistory, type NodeHistory } from './node.history.js';
import { nodeMachine, type NodeEvent } from './node.machine.js';
import type { Announcement, ApplyRequest } from './node.plan.js';

/** An effect the machine named; the one who sent the event performs it. */
export type NodeEffect =
  | { readonly type: 'apply'; readonly request: ApplyRequest }
  | { readonly type: 'announce'; readonly announcement: Announcement };

export interface NodeHost {
  /** Sends an event; answers the effects the machine named in reply (the caller performs them, in order). */
  send(event: NodeEvent): readonly NodeEffect[];
  view(): NodeView;
  health(live?: Partial<LiveFacts>): HealthEnvelope | NodeOnlyHealth;
  ready(live?: Partial<LiveFacts>): Readiness;
  draining(): boolean;
  configured(): boolean;
  /** Resolves once the machine reaches `stopped`. */
  stopped(): Promise<void>;
}

export function startNodeHost(identity: NodeIdentity, logger: Logger): NodeHost {
  let named: NodeEffect[] = [];
  const actor = createActor(
    nodeMachine.provide({
      actions: {
        apply: (_, request) => void named.push({ type: 'apply', request }),
        announce: (_, announcement) => void named.push({ type: 'announce', announcement }),
      },
    }),
  ).start();
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
    send(event) {
      named = [];
      actor.send(event);
      const effects = named;
      named = [];
      return effects;
    },
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

/** Flattens a snapshot for the probes. */
export function viewOf(snapshot: SnapshotFrom<typeof nodeMachine>): NodeView {
  const value = snapshot.value;
  const phase = (typeof value === 'string' ? value : Object.keys(value)[0]) as NodeView['phase'];
  return {
    phase,
    configured: snapshot.context.configured,
    posture: snapshot.context.posture,
    concludedPosture: snapshot.context.applying?.before ?? snapshot.context.posture,
    appliedEpoch: snapshot.context.appliedEpoch,
  };
}

/** The node's history, folded from its own announcements in SVC_CONFIG (what `node.booted` carries). */
export async function readNodeHistory(bus: Bus, nodeId: string): Promise<NodeHistory> {
  let history = emptyNodeHistory;
  const decoder = new TextDecoder();
  for await (const message of bus.replay(Streams.Config, { subject: Subjects.configRevisionApplied })) {
    let record: unknown = null;
    try {
      record = JSON.parse(decoder.decode(message.data));
    } catch {
      continue;
    }
    history = foldNodeHistory(history, nodeId, record);
  }
  return history;
}
