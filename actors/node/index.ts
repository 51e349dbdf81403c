export { nodeMachine, type DivergedPosture, type NodeContext, type NodeEvent } from './node.machine.js';
export { buildHealth, emptyLiveFacts, healthStatus, readiness } from './node.health.js';
export type { LiveFacts, NodeIdentity, NodeView } from './node.health.js';
export { startNodeHost, viewOf, type NodeHost } from './node.host.js';
