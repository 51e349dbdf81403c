/**
 * `GET /mcp-servers` (spec read routes): per node, per tool-server instance — started, failed, tools
 * served, first failure. Always guarded (the guard's always-guarded prefixes list it too). The
 * answer comes from the tool-server manager through `status`; error texts in it are already
 * scrubbed of env and header values.
 */
import type { McpServersAnswer } from '../../schema/index.js';
import type { RouteDef } from '../types.js';

export function mcpServersRoutes(status: () => McpServersAnswer | Promise<McpServersAnswer>): RouteDef[] {
  return [
    {
      method: 'GET',
      pattern: '/mcp-servers',
      access: 'guarded',
      handler: async () => ({ status: 200, body: await status() }),
    },
  ];
}
