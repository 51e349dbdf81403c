/**
 * The native work tracker's routes (spec "Work tracker and knowledge routes"), served when
 * `tracker.backend` is native. The retention status and gestures are not served yet: they answer 404
 * `unknown_query` naming that (ops/work-tracker.md "Not yet served").
 */
import { ApiError } from '../../api-error.js';
import type { Method, RouteDef } from '../../types.js';
import type { WorkRouteDeps } from './work.deps.js';
import type { FileBlobs } from './work.blobs.js';
import { workFileRoutes } from './work.files.routes.js';
import { workItemRoutes } from './work.items.routes.js';
import { workPersonRoutes } from './work.person.routes.js';
import { workPersonalRoutes } from './work.personal.routes.js';
import { workProjectRoutes } from './work.projects.routes.js';

const methods: readonly Method[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

function notYet(what: string): RouteDef[] {
  const handler = (): never => {
    throw new ApiError('unknown_query', {
      detail: `the native work tracker does not serve ${what} in this release`,
      hint: 'See ops/work-tracker.md "Not yet served".',
    });
  };
  const root = `/work/${what}`;
  return [root, `${root}/*`].flatMap((pattern) => methods.map((method) => ({ method, pattern, handler })));
}

export function workRoutes(deps: WorkRouteDeps & { readonly blobs: FileBlobs }): RouteDef[] {
  return [
    ...workItemRoutes(deps),
    ...workProjectRoutes(deps),
    ...workPersonalRoutes(deps),
    ...workPersonRoutes(deps),
    ...workFileRoutes(deps, deps.blobs),
    ...notYet('retention'),
  ];
}

export { FILES_BUCKET, kvBlobs, type FileBlobs } from './work.blobs.js';

export type { WorkRouteDeps } from './work.deps.js';
