/** Tool servers (MCP) and builtin tools a seat can call. */
export {
  createToolServerManager,
  type ApplyOutcome,
  type ToolServerManager,
  type ToolServerManagerOptions,
} from './toolservers.manager.js';
export { defaultSupervision, type SupervisionSettings } from './toolservers.instance.js';
export { agentSeats, instanceKey, planInstances, type InstanceSpec, type Plan } from './toolservers.plan.js';
export {
  backoffDelay,
  resolveInstance,
  scrub,
  type Launch,
  type ResolvedInstance,
} from './toolservers.resolve.js';
export { toolServersApplier } from './toolservers.applier.js';
