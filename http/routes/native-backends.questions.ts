/**
 * The native tracker's and knowledge base's reads as `/query/{what}` questions, so the dashboard asks
 * them over the socket's query channel. Each question runs the very route handler `GET` would, with the
 * question's parameters as the query (and the path's parameter taken from one of them), so answers and
 * refusals are the routes' own (a parameter the route does not declare too). They are reads, open as
 * the routes are (guarded only when anonymous reads are off). With the backend not native, each answers the refusal the routes give (404 `unknown_query`
 * saying which setting serves them). `native_backends` says which backends this node runs natively, so a
 * room asks it first and never meets that refusal (a 404 a browser logs when it came over HTTP).
 */
import { ApiError } from '../api-error.js';
import { unreadParamError } from '../declared-params.js';
import type { RouteDef } from '../types.js';
import type { Question, QueryContext } from './query.routes.js';
import { oneValue } from './single.param.js';

interface Read {
  readonly name: string;
  readonly pattern: string;
  /** The path parameter (`id`, or `*` for a rest-of-path) filled from the question's `param`. */
  readonly path?: { readonly route: string; readonly param: string };
}

const workReads: readonly Read[] = [
  { name: 'work_projects', pattern: '/work/projects' },
  { name: 'work_items', pattern: '/work' },
  { name: 'work_item', pattern: '/work/:id', path: { route: 'id', param: 'id' } },
];
const knowledgeReads: readonly Read[] = [
  { name: 'containers', pattern: '/containers' },
  { name: 'pages', pattern: '/pages' },
  { name: 'page', pattern: '/pages/*', path: { route: '*', param: 'id' } },
];

function fromRoute(routes: readonly RouteDef[], read: Read): Question['answer'] {
  const route = routes.find((r) => r.method === 'GET' && r.pattern === read.pattern);
  if (!route) throw new Error(`no GET ${read.pattern} route to ask`);
  // The route's declared parameters, and the one naming its path's parameter: any other is refused as
  // the route refuses it, named as the question.
  const known = route.query && [...(read.path ? [read.path.param] : []), ...route.query];
  return async (params: URLSearchParams, ctx: QueryContext) => {
    const unread = known && unreadParamError(params, read.name, known);
    if (unread) throw unread;
    const value = read.path ? (oneValue(params, read.path.param, 'bad_params') ?? '') : null;
    if (read.path && value === '')
      throw new ApiError('bad_params', { detail: `${read.name} needs \`${read.path.param}\`` });
    const query = new URLSearchParams(params);
    if (read.path) query.delete(read.path.param);
    const reply = await route.handler({
      method: 'GET',
      path: read.path ? read.pattern.replace(/(:id|\*)$/, encodeURIComponent(value ?? '')) : read.pattern,
      params: read.path ? { [read.path.route]: value ?? '' } : {},
      query,
      headers: {},
      body: Buffer.alloc(0),
      actor: ctx.actor,
      log: ctx.log,
      route: read.pattern,
    });
    return reply.body;
  };
}

function refused(what: string, setting: string, backend: string | undefined): Question['answer'] {
  return () => {
    throw new ApiError('unknown_query', {
      detail: `the ${what} is served only when ${setting} is native (this node's is ${backend ?? 'unset'})`,
      hint: `Set ${setting}: native in the node's configuration file to serve it.`,
    });
  };
}

export function nativeBackendQuestions(backends: {
  readonly tracker: string | undefined;
  readonly knowledge: string | undefined;
  /** The native tracker's routes, when it runs. */
  readonly workRoutes?: readonly RouteDef[];
  /** The native knowledge base's routes, when it runs. */
  readonly knowledgeRoutes?: readonly RouteDef[];
}): Map<string, Question> {
  const family = (
    reads: readonly Read[],
    routes: readonly RouteDef[] | undefined,
    refusal: Question['answer'],
  ): Array<[string, Question]> =>
    // The routes refuse a repeat themselves, and take their list filters (`status`) repeated.
    reads.map((read) => [
      read.name,
      { guarded: false, repeatable: 'own', answer: routes ? fromRoute(routes, read) : refusal },
    ]);
  const configured = {
    tracker: backends.tracker ?? null,
    knowledge: backends.knowledge ?? null,
  };
  return new Map([
    ['native_backends', { guarded: false, params: [], answer: () => configured }],
    ...family(
      workReads,
      backends.tracker === 'native' ? backends.workRoutes : undefined,
      refused('work tracker', 'tracker.backend', backends.tracker),
    ),
    ...family(
      knowledgeReads,
      backends.knowledge === 'native' ? backends.knowledgeRoutes : undefined,
      refused('knowledge base', 'knowledge.backend', backends.knowledge),
    ),
  ]);
}
