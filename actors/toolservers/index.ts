/** Tool servers (MCP) and builtin tools a seat can call. */
export { createToolServerManager, type ToolServerManager } from './toolservers.manager.js';
export { planInstances } from './toolservers.plan.js';
export { backoffDelay, resolveInstance, scrub } from './toolservers.resolve.js';
export { toolServersApplier } from './toolservers.applier.js';
export { busEventSink, createToolRouter, type ToolRouter } from './tools.router.js';
export { defineBuiltin, refusedArguments, textResult } from './builtin/builtin.define.js';
export {
  MemoryKind,
  MemoryRow,
  type EventSink,
  type MemoryQuery,
  type Need,
  type NeedRecorded,
  type NeedsRecorder,
  type PersonalMemory,
  type RecalledRow,
  type ShelvedSkill,
  type SkillShelf,
  type ToolContext,
} from './builtin/builtin.types.js';
export { createLearningGate, type LearningGate } from './builtin/learning.gate.js';
export { memoryTools } from './builtin/memory.tool.js';
export { colleaguesOf, orgDirectoryFrom } from './builtin/org-directory.js';
export { orgTools } from './builtin/org.tool.js';
export { workTools, type WorkAccess } from './builtin/work.tool.js';
export { sandboxTools } from './builtin/sandbox.tool.js';
export { builtinAsServiceTool, serviceBuiltins } from './builtin/service.tool.js';
export { skillTools } from './builtin/skills.tool.js';
