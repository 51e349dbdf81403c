/**
 * `GET /mcp-servers` (spec read routes): per node, per tool-server instance — started, failed, tools
 * served, first failure. Always guarded (the guard's always-guarded prefixes list it too). The
 * answer comes from the tool-server manager through the `mcp_servers` question; error texts in it are
 * already scrubbed of env and header values.
 */
import type { RouteDef } from '../types.js';
import { adaptedQuery } from './query.catalogue.js';
import { ask, type QuestionRegistry } from './query.routes.js';

/** `GET /mcp-servers`, asked of the registry's `mcp_servers` (scattered over the fleet when it is). */
export function mcpServersRoutes(questions: QuestionRegistry): RouteDef[] {
  return [
    {
      method: 'GET',
      pattern: '/mcp-servers',
      access: 'guarded',
      query: adaptedQuery('mcp_servers'),
      handler: async (req) => ({ status: 200, body: await ask(questions, 'mcp_servers', req.query, req) }),
    },
  ];
}
