/**
 * `/work*` and `/pages*` (spec "Work tracker and knowledge routes"): served only when `tracker.backend`
 * (`knowledge.backend`) is `native`, otherwise 404 `unknown_query`. This release has no native tracker or
 * knowledge base, so every method on every path under them answers that 404, naming why; the
 * catch-all keeps them from reading as `no_route`, which would say the path is unknown to the API.
 * A native tracker's `/work` routes are the work tracker's own (`routes/work`): this family leaves them.
 * `/containers` belongs to the knowledge base: refused with it. A native knowledge base brings its own
 * routes (`http/routes/pages/`), which take the place of its refusal.
 */
import { ApiError } from '../api-error.js';
import type { Method, Precondition, RouteDef } from '../types.js';

export interface NativeBackends {
  /** `tracker.backend` of this node's Tier A file (unset: none). */
  readonly tracker: string | undefined;
  /** `knowledge.backend` of this node's Tier A file (unset: none). */
  readonly knowledge: string | undefined;
  /** The native knowledge base's routes (`/pages*`, `/containers`): served instead of the refusal when native. */
  readonly knowledgeRoutes?: readonly RouteDef[];
}

const methods: readonly Method[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
const anyPrecondition: readonly Precondition[] = ['if-match', 'if-none-match'];

function refusal(what: string, setting: string, backend: string | undefined): () => never {
  const detail =
    backend === 'native'
      ? `this release has no native ${what}: ${setting} is native, but nothing serves it yet`
      : `the ${what} routes are served only when ${setting} is native (this node's is ${backend ?? 'unset'})`;
  const hint =
    backend === 'native'
      ? `Use the ${what} your company already has (its integration), and leave ${setting} unset.`
      : `Set ${setting}: native in the node's configuration file to serve them.`;
  return () => {
    throw new ApiError('unknown_query', { detail, hint });
  };
}

export function nativeBackendRoutes(backends: NativeBackends): RouteDef[] {
  const knowledge = refusal('knowledge base', 'knowledge.backend', backends.knowledge);
  const servesKnowledge = backends.knowledge === 'native' && backends.knowledgeRoutes !== undefined;
  const families = [
    ...(backends.tracker === 'native'
      ? []
      : [{ root: '/work', handler: refusal('work tracker', 'tracker.backend', backends.tracker) }]),
    ...(servesKnowledge ? [] : [{ root: '/pages', handler: knowledge }]),
  ];
  return [
    ...families.flatMap(({ root, handler }) =>
      [root, `${root}/*`].flatMap((pattern) =>
        // Every request is this 404 whatever it carries, a precondition too (RFC 9110 13.2.1).
        methods.map((method) => ({ method, pattern, handler, preconditions: anyPrecondition })),
      ),
    ),
    ...(servesKnowledge
      ? (backends.knowledgeRoutes ?? [])
      : [{ method: 'GET' as const, pattern: '/containers', handler: knowledge }]),
  ];
}
