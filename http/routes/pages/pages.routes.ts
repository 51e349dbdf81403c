/**
 * The knowledge routes of a node whose `knowledge.backend` is native (spec "Work tracker and knowledge
 * routes", `/containers`): reads open like every read, writes guarded like every write. `{id}` may be
 * `CONTAINER/Title`, which holds a `/`, so the page routes take the rest of the path; a POST serves only
 * `/pages/{id}/comments`, told apart by its last segment (elsewhere it is left out of `Allow`).
 */
import type { PagesService } from '../../../projections/index.js';
import type { RouteDef } from '../../types.js';
import { versioned } from '../if-match.param.js';
import { containersRoute, listRoute, pageRoute } from './pages.reads.js';
import { checkQueryOpId } from '../op-id.param.js';
import type { KnowledgeCallers } from './pages.request.js';
import { commentRoute, createRoute, deleteRoute, updateRoute } from './pages.writes.js';

export interface KnowledgeRouteDeps extends KnowledgeCallers {
  readonly pages: PagesService;
}

const COMMENTS = /^(.+)\/comments$/;

export function knowledgeRoutes(deps: KnowledgeRouteDeps): RouteDef[] {
  const rest = (params: Readonly<Record<string, string>>): string => params['*'] ?? '';
  return [
    { method: 'GET', pattern: '/containers', query: [], handler: () => containersRoute(deps.pages) },
    {
      method: 'GET',
      pattern: '/pages',
      query: ['container', 'parent', 'q', 'limit', 'cursor'],
      handler: (req) => listRoute(deps.pages, req),
    },
    {
      method: 'GET',
      pattern: '/pages/*',
      query: [],
      handler: (req) => pageRoute(deps.pages, rest(req.params)),
    },
    {
      method: 'POST',
      pattern: '/pages',
      query: ['op_id'],
      preconditions: versioned,
      beforeBody: checkQueryOpId,
      handler: (req) => createRoute(deps, req),
    },
    {
      method: 'POST',
      pattern: '/pages/*',
      // Only `/pages/{id}/comments` takes a POST: any other page path is 405 with an `Allow` without POST.
      serves: (params) => COMMENTS.test(rest(params)),
      query: ['op_id'],
      preconditions: versioned,
      beforeBody: checkQueryOpId,
      handler: (req) => commentRoute(deps, req, COMMENTS.exec(rest(req.params))![1]!),
    },
    {
      method: 'PATCH',
      pattern: '/pages/*',
      query: ['op_id'],
      preconditions: versioned,
      beforeBody: checkQueryOpId,
      handler: (req) => updateRoute(deps, req, rest(req.params)),
    },
    {
      method: 'DELETE',
      pattern: '/pages/*',
      query: ['op_id'],
      preconditions: versioned,
      beforeBody: checkQueryOpId,
      handler: (req) => deleteRoute(deps, req, rest(req.params)),
    },
  ];
}
