/**
 * The native work tracker's routes (spec "Work tracker and knowledge routes"), served when
 * `tracker.backend` is native.
 */
import { ApiError } from '../../api-error.js';
import type { RouteDef } from '../../types.js';
import type { WorkRouteDeps } from './work.deps.js';
import type { FileBlobs } from './work.blobs.js';
import { workFileRoutes } from './work.files.routes.js';
import { workItemRoutes } from './work.items.routes.js';
import { workPersonRoutes } from './work.person.routes.js';
import { workPersonalRoutes } from './work.personal.routes.js';
import { workProjectRoutes } from './work.projects.routes.js';
import { workRetentionRoutes } from './work.retention.routes.js';

export function workRoutes(deps: WorkRouteDeps & { readonly blobs: FileBlobs }): RouteDef[] {
  return namesNoItem([
    ...workItemRoutes(deps),
    ...workProjectRoutes(deps),
    ...workPersonalRoutes(deps),
    ...workPersonRoutes(deps),
    ...workFileRoutes(deps, deps.blobs),
    ...workRetentionRoutes(deps),
  ]).map((route) => guardAvailable(deps, route));
}

/**
 * A literal name under `/work` (`retention`, `comments`, `views`, ...) is a route of its own, never an
 * item called that (no key or id is one): `/work/{id}...` does not serve it, so `PATCH /work/retention`
 * answers 405 with the methods `/work/retention` offers rather than 404 for an item, and the `Allow` of a
 * `DELETE` there names only those.
 */
function namesNoItem(routes: RouteDef[]): RouteDef[] {
  const names = new Set(
    routes
      .map((r) => r.pattern.split('/')[2])
      .filter((s): s is string => s !== undefined && !s.startsWith(':')),
  );
  return routes.map((route) => {
    if (!route.pattern.startsWith('/work/:id')) return route;
    return {
      ...route,
      serves: (params) => !names.has(params['id'] ?? '') && (route.serves?.(params) ?? true),
    };
  });
}

/**
 * A node whose work log was trimmed and which read no snapshot reaching it holds a state without what
 * was trimmed: every route answers 503 `work_unavailable` rather than an incomplete tracker.
 */
function guardAvailable(deps: WorkRouteDeps, route: RouteDef): RouteDef {
  const unavailable = deps.unavailable;
  if (!unavailable) return route;
  return {
    ...route,
    handler: (req) => {
      const why = unavailable();
      if (why)
        throw new ApiError('work_unavailable', { detail: `this node cannot serve the work tracker: ${why}` });
      return route.handler(req);
    },
  };
}

export { FILES_BUCKET, kvBlobs, type FileBlobs } from './work.blobs.js';

export type { WorkRouteDeps } from './work.deps.js';
