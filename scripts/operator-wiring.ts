/**
 * The operator surface of one node (ops/operator.md): `/operator/mcp` and `/operator/act/{tool}` over the
 * catalogue of the native services' tools, acting as the person a token is bound to. Absent (no routes,
 * no `acts`) when no native backend contributes a tool. A native backend joins the catalogue by adding
 * its tools to `tools`.
 */
import { actTools, operatorRoutes, type AuthSettings, type RouteDef } from '../http/index.js';
import type { ActiveChart } from '../projections/index.js';
import type { Resolver, ServiceTool } from '../schema/index.js';
import { requestCallers } from './pages-wiring.js';

export interface OperatorSurface {
  readonly routes: RouteDef[];
  /** The write tools `/operator/act` serves (`/viewer`'s `acts`). */
  readonly acts: () => string[];
}

export function operatorSurface(opts: {
  readonly tools: readonly ServiceTool[];
  readonly auth: AuthSettings;
  readonly chart: ActiveChart;
  readonly resolve: Resolver;
}): OperatorSurface {
  if (opts.tools.length === 0) return { routes: [], acts: () => [] };
  const callers = requestCallers(opts);
  const deps = { tools: () => opts.tools, person: callers.person };
  return { routes: operatorRoutes(deps), acts: () => actTools(deps).map((t) => t.name) };
}
