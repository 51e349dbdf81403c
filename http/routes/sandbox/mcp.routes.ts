/**
 * `POST|DELETE /mcp/{token}`: the tool bridge — the running seat's tools over MCP streamable HTTP for
 * the coding agent of one run. Never behind the bearer guard: the per-run path token is the credential,
 * refused (401 `invalid_token`) when no running run has it, including once its run has ended.
 */
import { serveMcp } from '../../mcp-bridge.js';
import type { RouteDef } from '../../types.js';
import { liveRunOf } from './otlp.routes.js';
import type { McpBridgeDeps } from './sandbox.deps.js';

export function mcpBridgeRoutes(deps: McpBridgeDeps, version: string): RouteDef[] {
  // Stateless: no server-initiated stream, so no GET (405 with `Allow: POST, DELETE`, HEAD alike).
  return (['POST', 'DELETE'] as const).map((method): RouteDef => ({
    method,
    pattern: '/mcp/:token',
    access: 'open',
    beforeBody(req) {
      liveRunOf(deps, req.params['token']);
    },
    handler(req) {
      const run = liveRunOf(deps, req.params['token']);
      return serveMcp(req, {
        name: `svc-seat-${run.agent_handle}`,
        version,
        tools: () => deps.tools(run),
        call: (name, args, signal) => deps.call(run, name, args, signal),
      });
    },
  }));
}
