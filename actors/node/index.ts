export { nodeMachine, type NodeContext, type NodeEvent } from './node.machine.js';
export { nextPosture, PostureCause, type DivergedPosture, type PostureGiven } from './node.posture.js';
export {
  NodeApplyOutcome,
  nextApply,
  type ActiveEpoch,
  type Announcement,
  type ApplyRequest,
} from './node.plan.js';
export { emptyNodeHistory, foldNodeHistory, type AppliedRevision, type NodeHistory } from './node.history.js';
export { buildHealth, emptyLiveFacts, healthStatus, readiness } from './node.health.js';
export type { LiveFacts, NodeIdentity, NodeView } from './node.health.js';
export { readNodeHistory, startNodeHost, viewOf, type NodeEffect, type NodeHost } from './node.host.js';
