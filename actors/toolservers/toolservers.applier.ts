/**
 * The tool servers as one subsystem of a config apply: a restart-required item (spec apply order),
 * so it runs last; a failing server never fails the apply — it is restarted with backoff and shown
 * by `/mcp-servers`.
 */
import type { SubsystemApplier } from '../config/index.js';
import type { ToolServerManager } from './toolservers.manager.js';

export function toolServersApplier(manager: ToolServerManager): SubsystemApplier {
  return {
    name: 'restart_required',
    async apply(next) {
      await manager.apply(next);
    },
    async rollback(previous) {
      await manager.apply(previous);
    },
  };
}
