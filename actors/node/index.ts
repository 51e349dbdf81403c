export { nodeMachine, type NodeEvent } from './node.machine.js';
export { nextPosture, PostureCause, type PostureGiven } from './node.posture.js';
export { NodeApplyOutcome, type Announcement, type ApplyRequest } from './node.plan.js';
export { emptyNodeHistory, foldNodeHistory, type NodeHistory } from './node.history.js';
export { alarmedPosture, buildHealth, emptyLiveFacts, readiness } from './node.health.js';
export type { NodeIdentity, NodeView } from './node.health.js';
export { readNodeHistory, startNodeHost, viewOf, type NodeEffect, type NodeHost } from './node.host.js';
