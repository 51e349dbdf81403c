/** `/work/projects`, `/work/projects/{key}`, `/work/catalogue` and `/work/activity`. */
import {
  activityKinds,
  canonicalId,
  customFields,
  taskTypeNamed,
  taskTypes,
  workStatuses,
  groupOf,
  noWorkItem,
  queryRanges,
  workMoves,
  type WorkState,
} from '../../../schema/index.js';
import {
  activityPage,
  projectCounts,
  projectRow,
  projectRows,
  projectSortKeys,
} from '../../../projections/index.js';
import { ApiError } from '../../api-error.js';
import type { ApiReply, ApiRequest, RouteDef } from '../../types.js';
import type { WorkRouteDeps } from './work.deps.js';
import {
  badParams,
  boolParam,
  enumParam,
  instantParam,
  listParam,
  positionParam,
  quoted,
  searchParam,
  textParam,
  workParam,
} from './work.params.js';
import { intParam } from '../int-query.param.js';

const SEARCH_WINDOW_MS = 90 * 24 * 3600 * 1000;
const sortValues = projectSortKeys.flatMap((k) => [k, `-${k}`]);

function projects(deps: WorkRouteDeps, req: ApiRequest): ApiReply {
  const body = projectRows(deps.state(), deps.projects(), {
    q: searchParam(req),
    unit: textParam(req, 'unit'),
    archived: enumParam(req, 'archived', ['false', 'only', 'true'] as const, 'false'),
    sort: enumParam(req, 'sort', sortValues, 'key'),
    limit: intParam(req, 'limit', queryRanges.workProjectsLimit),
  });
  return { status: 200, body };
}

function project(deps: WorkRouteDeps, req: ApiRequest): ApiReply {
  const given = req.params['key']!;
  // Keys are upper-case by their grammar: any case names the project, as an item key does.
  const found = deps.projects().find((p) => p.key === given.toUpperCase());
  if (!found)
    throw new ApiError('not_found', {
      detail: `no project ${quoted(given)}`,
      hint: 'List projects with GET /work/projects.',
    });
  const forType = textParam(req, 'for_type');
  if (forType !== null && !taskTypeNamed(forType)) throw badParams(`unknown task type "${forType}"`);
  const state = deps.state();
  return {
    status: 200,
    body: {
      ...projectRow(state, found, projectCounts(state, found.key)),
      members: found.members,
      statuses: workStatuses.map((s) => ({ slug: s, group: groupOf[s], moves: workMoves[s] })),
      types: taskTypes.filter((t) => !t.archived).map((t) => t.name),
      fields: customFields.filter(
        (f) => !f.archived && (forType === null || f.types.length === 0 || f.types.includes(forType)),
      ),
      ...(forType !== null ? { for_type: forType } : {}),
    },
  };
}

function catalogue(req: ApiRequest): ApiReply {
  const archived = boolParam(req, 'archived') ?? false;
  return {
    status: 200,
    body: {
      types: taskTypes.filter((t) => archived || !t.archived),
      fields: customFields.filter((f) => archived || !f.archived),
      statuses: workStatuses.map((s) => ({ slug: s, group: groupOf[s], moves: workMoves[s] })),
    },
  };
}

/**
 * The item `task=` names: a live item's key or id (either in any case), or a purged one's id or key — activity keeps
 * a purged item's purge row, so its key still finds it (numbers are never reused, so the key is its own).
 */
function taskOf(state: WorkState, ref: string): string | null {
  const key = ref.toUpperCase();
  const live = state.keys.get(key);
  if (live !== undefined) return live;
  const asId = canonicalId(ref);
  if (state.everKeys.has(asId)) return asId;
  for (const [id, k] of state.everKeys) if (k === key) return id;
  return null;
}

function activity(deps: WorkRouteDeps, req: ApiRequest): ApiReply {
  const state = deps.state();
  const since = positionParam(req, 'since', state.retention.generation);
  const cursor = positionParam(req, 'cursor', state.retention.generation);
  const taskRef = textParam(req, 'task');
  const task = taskRef === null ? null : taskOf(state, taskRef);
  if (taskRef !== null && task === null) throw new ApiError('not_found', { detail: noWorkItem(taskRef) });
  const container = textParam(req, 'container')?.toUpperCase() ?? null;
  const from = instantParam(req, 'from');
  const to = instantParam(req, 'to');
  // An empty range is a mistake (the two swapped, a wrong day), not a question whose answer is no rows.
  if (from !== null && to !== null && from > to)
    throw badParams(
      `from (${workParam(req, 'from')}) is later than to (${workParam(req, 'to')}); from must be at or before to`,
    );
  const q = searchParam(req);
  if (q !== null && task === null) {
    // Spec "Limits": a search needs a task, or a project with a since inside 90 days. The read starts at
    // the cursor when one is given (a later position than its since), so a search pages on without since.
    const start = cursor ?? since;
    const startRow = start === null ? undefined : state.activity.rows().find((r) => r.seq > start);
    const nowMs = (deps.now?.() ?? new Date()).getTime();
    const recent =
      start !== null && (startRow === undefined || Date.parse(startRow.at) >= nowMs - SEARCH_WINDOW_MS);
    if (container === null || !recent)
      throw badParams('q needs task=, or container= with a since inside the last 90 days');
  }
  // A closed set like the statuses: a typo is refused, not answered as "nothing of that kind".
  const kinds = listParam(req, 'kinds');
  for (const k of kinds)
    if (!(activityKinds as readonly string[]).includes(k))
      throw badParams(`kinds: unknown kind ${quoted(k)} (one of ${activityKinds.join(', ')})`);
  const body = activityPage(state, {
    after: cursor ?? since ?? 0,
    task,
    project: container,
    kinds,
    actors: actorsNamed(deps, textParam(req, 'actor')),
    // Handles are lower-case by their grammar, so any case names the seat (as in a mention).
    assignee: textParam(req, 'assignee')?.toLowerCase() ?? null,
    notified: textParam(req, 'notified')?.toLowerCase() ?? null,
    from,
    to,
    q,
    limit: intParam(req, 'limit', queryRanges.workActivityLimit),
  });
  return { status: 200, body };
}

/**
 * Whose rows `actor=` reads: the name as spelled (a token id, case-sensitive: `CI` and `ci` are two
 * tokens), and the seat it names in any case when its lower case is a seat handle of the active document
 * (handles are lower-case by their grammar, so `Ada` is the seat ada).
 */
function actorsNamed(deps: WorkRouteDeps, actor: string | null): string[] | null {
  if (actor === null) return null;
  const handle = actor.toLowerCase();
  return handle !== actor && deps.seats().has(handle) ? [actor, handle] : [actor];
}

export function workProjectRoutes(deps: WorkRouteDeps): RouteDef[] {
  return [
    {
      method: 'GET',
      pattern: '/work/projects',
      query: ['q', 'unit', 'archived', 'sort', 'limit'],
      handler: (req) => projects(deps, req),
    },
    {
      method: 'GET',
      pattern: '/work/projects/:key',
      query: ['for_type'],
      handler: (req) => project(deps, req),
    },
    { method: 'GET', pattern: '/work/catalogue', query: ['archived'], handler: (req) => catalogue(req) },
    {
      method: 'GET',
      pattern: '/work/activity',
      query: [
        'since',
        'cursor',
        'task',
        'container',
        'from',
        'to',
        'q',
        'kinds',
        'actor',
        'assignee',
        'notified',
        'limit',
      ],
      handler: (req) => activity(deps, req),
    },
  ];
}
