/**
 * The tool servers as one subsystem of a config apply: the spec's restart-required items (a changed
 * server is restarted), so it runs after providers and scalars; a failing server never fails the
 * apply — it is restarted with backoff and shown by `/mcp-servers`.
 */
import type { SubsystemApplier } from '../config/index.js';
import type { ToolServerManager } from './toolservers.manager.js';

export function toolServersApplier(manager: ToolServerManager): SubsystemApplier {
  return {
    name: 'tool_servers',
    async apply(next) {
      await manager.apply(next);
    },
    async rollback(previous) {
      await manager.apply(previous);
    },
  };
}
