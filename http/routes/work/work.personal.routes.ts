/**
 * The personal reads (spec "Authentication" 7): `/work/my-work`, `/work/inbox`, `/work/people/{handle}`,
 * `/work/views` and `/work/views/saved`. Each answers the caller's own seat (the person its token is bound
 * to); another person's only to an operator. The writes behind them are in work.person.routes.ts.
 */
import {
  builtinViews,
  inboxPage,
  InboxReason,
  myWork,
  personState,
  savedViews,
} from '../../../projections/index.js';
import { listIdentity, ListOrder, parsePosition, queryRanges, SeqKey } from '../../../schema/index.js';
import type { ApiReply, ApiRequest, RouteDef } from '../../types.js';
import { cursorParam, cursorRefused, sealNext } from '../list-cursor.param.js';
import type { WorkRouteDeps } from './work.deps.js';
import {
  badParams,
  boolParam,
  enumParam,
  listParam,
  personalHandle,
  positionParam,
  textParam,
} from './work.params.js';
import { intParam } from '../int-query.param.js';

const reasons = Object.values(InboxReason) as string[];

const now = (deps: WorkRouteDeps): Date => deps.now?.() ?? new Date();

function inbox(deps: WorkRouteDeps, req: ApiRequest): ApiReply {
  const handle = personalHandle(req, deps.people(), textParam(req, 'handle'));
  const wanted = listParam(req, 'reasons');
  for (const r of wanted)
    if (!reasons.includes(r)) throw badParams(`unknown reason "${r}" (${reasons.join(', ')})`);
  const state = deps.state();
  const filters = {
    handle,
    unread: boolParam(req, 'unread'),
    primaryOnly: boolParam(req, 'primary_only') ?? false,
    snoozed: enumParam(req, 'snoozed', ['exclude', 'include', 'only'] as const, 'exclude'),
    reasons: wanted,
    since: positionParam(req, 'since', state.retention.generation) ?? 0,
  };
  // The person and the filters define the inbox a cursor pages.
  const list = listIdentity('/work/inbox', { ...filters, reasons: [...new Set(wanted)].sort() });
  const before = cursorParam(req, ListOrder.Inbox, SeqKey, list);
  // An inbox row is named by its log position: the cursor's two halves must name the same record.
  if (before !== null && parsePosition(before.id)?.seq !== before.key)
    throw cursorRefused('names no row of this list');
  const body = inboxPage(state, {
    ...filters,
    limit: intParam(req, 'limit', queryRanges.workInboxLimit),
    before: before?.key ?? null,
    now: now(deps),
  });
  return { status: 200, body: { handle, ...body, next: sealNext(body.next, list) } };
}

/** The person a views read is for: `?viewer=` (the spec's name) or `?handle=` (the other personal routes'). */
function viewerParam(req: ApiRequest): string | null {
  const viewer = textParam(req, 'viewer');
  const handle = textParam(req, 'handle');
  if (viewer !== null && handle !== null && viewer.toLowerCase() !== handle.toLowerCase())
    throw badParams(`viewer "${viewer}" and handle "${handle}" name different people; send one`);
  return viewer ?? handle;
}

export function workPersonalRoutes(deps: WorkRouteDeps): RouteDef[] {
  return [
    {
      method: 'GET',
      pattern: '/work/my-work',
      query: ['handle'],
      handler: (req) => {
        const handle = personalHandle(req, deps.people(), textParam(req, 'handle'));
        return { status: 200, body: myWork(deps.state(), handle, now(deps)) };
      },
    },
    {
      method: 'GET',
      pattern: '/work/inbox',
      query: ['handle', 'reasons', 'unread', 'primary_only', 'snoozed', 'since', 'cursor', 'limit'],
      handler: (req) => inbox(deps, req),
    },
    {
      method: 'GET',
      pattern: '/work/people/:handle',
      query: [],
      handler: (req) => {
        const handle = personalHandle(req, deps.people(), req.params['handle']!);
        return { status: 200, body: personState(deps.state(), handle, deps.projects(), now(deps)) };
      },
    },
    {
      method: 'GET',
      pattern: '/work/views',
      query: ['viewer', 'handle', 'container'],
      handler: (req) => {
        // As every personal route: no person named or bound is 400, not a view of no one.
        const viewer = personalHandle(req, deps.people(), viewerParam(req));
        const container = textParam(req, 'container')?.toUpperCase() ?? null;
        if (container !== null && !deps.projects().some((p) => p.key === container))
          throw badParams(`no project "${container}"`);
        const pinned = deps.state().people.get(viewer)?.pinned ?? [];
        return {
          status: 200,
          body: { viewer, views: builtinViews(deps.projects(), container, viewer, pinned) },
        };
      },
    },
    {
      method: 'GET',
      pattern: '/work/views/saved',
      query: ['viewer', 'handle', 'counts'],
      handler: (req) => {
        const viewer = personalHandle(req, deps.people(), viewerParam(req));
        const counts = boolParam(req, 'counts') ?? false;
        return { status: 200, body: savedViews(deps.state(), viewer, counts) };
      },
    },
  ];
}
