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
export { busEventSink, createToolRouter, type ToolRouter } from './tools.router.js';
export { defineBuiltin, textResult, type BuiltinDefinition } from './builtin/builtin.define.js';
export {
  Colleague,
  MemoryKind,
  MemoryRow,
  type BuiltinTool,
  type EventSink,
  type MemoryQuery,
  type Need,
  type NeedsRecorder,
  type OrgDirectory,
  type PersonalMemory,
  type ToolContext,
} from './builtin/builtin.types.js';
export { createLearningGate, type LearningGate } from './builtin/learning.gate.js';
export { memoryLimits, memoryTools } from './builtin/memory.tool.js';
export { colleaguesOf, findColleagues, orgDirectoryFrom } from './builtin/org-directory.js';
export { orgTools } from './builtin/org.tool.js';
export { workTools, type WorkAccess } from './builtin/work.tool.js';
export { sandboxTools } from './builtin/sandbox.tool.js';
export { builtinAsServiceTool, serviceBuiltins } from './builtin/service.tool.js';
