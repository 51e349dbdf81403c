/**
 * A person's own writes (ops/work-tracker.md "Inbox state and views"): inbox rows read, snoozed and
 * unsnoozed, their priorities, saved views and pins. Each acts as the caller's person (the seat the token
 * is bound to) or, with `handle`, another person's only to an operator; each is recorded on the work
 * stream with its `op_id`, so a retry answers the first outcome and every node reads the same state.
 */
import { randomUUID } from 'node:crypto';
import {
  InboxReadBody,
  InboxSnoozeBody,
  InboxUnsnoozeBody,
  parsePosition,
  PinViewBody,
  PrioritiesBody,
  SaveViewBody,
  UpdateViewBody,
  WORK_STREAM,
  type PersonAct,
} from '../../../schema/index.js';
import { personState, savedViews } from '../../../projections/index.js';
import { ApiError, bodyProblems } from '../../api-error.js';
import { opIdOf, writeBody } from '../op-id.param.js';
import type { ApiReply, ApiRequest, RouteDef } from '../../types.js';
import type { WorkRouteDeps } from './work.deps.js';
import { actorOf, personalHandle, refusal, textParam, viewRef } from './work.params.js';

const READ_BACK_MS = 10_000;

/**
 * Inbox row ids are the rows' log positions; refused 400 `invalid_body` naming each bad one. A row keeps
 * the generation it was stored in, and sequences never repeat across a reanchor, so any generation up to
 * the log's current one names a row.
 */
function rowSeqs(ids: readonly string[], generation: number, field = 'ids'): number[] {
  const issues: Array<{ path: Array<string | number>; code: string; message: string }> = [];
  const seqs = ids.map((id, i) => {
    const p = parsePosition(id);
    if (p && p.stream === WORK_STREAM && p.generation >= 1 && p.generation <= generation && p.seq > 0)
      return p.seq;
    issues.push({
      path: field === 'ids' ? [field, i] : [field],
      code: 'custom',
      message: `an inbox row id ${WORK_STREAM}@<generation>:<sequence> (generation 1 to ${generation})`,
    });
    return 0;
  });
  if (issues.length > 0)
    throw new ApiError('invalid_body', {
      detail: 'The body does not fit the route (see `problems`).',
      extra: { problems: bodyProblems(issues) },
    });
  return seqs;
}

async function send(
  deps: WorkRouteDeps,
  req: ApiRequest,
  handle: string,
  given: string | undefined,
  act: PersonAct,
  status = 200,
): Promise<ApiReply> {
  const people = deps.people();
  const op_id = opIdOf(req, given, randomUUID);
  const change = { kind: 'person' as const, handle, act };
  const reply = refusal(await deps.write({ op_id, actor: actorOf(req, people), turn_id: null, change }));
  await deps.until(reply.seq, READ_BACK_MS);
  const state = deps.state();
  const now = deps.now?.() ?? new Date();
  const body: Record<string, unknown> = {
    op_id: reply.op_id,
    outcome: reply.repeated ? 'repeated' : 'applied',
    position: reply.position,
    handle,
    person: personState(state, handle, deps.projects(), now),
  };
  if (act.act === 'view_save' || act.act === 'view_update')
    body['view'] = savedViews(state, handle, false).views.find((v) => v.id === reply.key) ?? null;
  return { status: reply.repeated ? 200 : status, body };
}

const who = (deps: WorkRouteDeps, req: ApiRequest, handle: string | undefined): string =>
  personalHandle(req, deps.people(), handle ?? textParam(req, 'handle'));

/** A person's write takes the person as `?handle=` (or in its body) and its retry handle as `?op_id=`. */
const PERSON_WRITE = ['handle', 'op_id'];

export function workPersonRoutes(deps: WorkRouteDeps): RouteDef[] {
  const gen = (): number => deps.state().retention.generation;
  return [
    {
      method: 'POST',
      pattern: '/work/inbox/read',
      query: PERSON_WRITE,
      handler: async (req) => {
        const b = writeBody(req, InboxReadBody);
        const through = b.all_before === undefined ? null : rowSeqs([b.all_before], gen(), 'all_before')[0]!;
        const act: PersonAct = { act: 'read', seqs: rowSeqs(b.ids ?? [], gen()), through };
        return send(deps, req, who(deps, req, b.handle), b.op_id, act);
      },
    },
    {
      method: 'POST',
      pattern: '/work/inbox/snooze',
      query: PERSON_WRITE,
      handler: async (req) => {
        const b = writeBody(req, InboxSnoozeBody);
        const act: PersonAct = { act: 'snooze', seqs: rowSeqs(b.ids, gen()), until: b.until };
        return send(deps, req, who(deps, req, b.handle), b.op_id, act);
      },
    },
    {
      method: 'POST',
      pattern: '/work/inbox/unsnooze',
      query: PERSON_WRITE,
      handler: async (req) => {
        const b = writeBody(req, InboxUnsnoozeBody);
        return send(deps, req, who(deps, req, b.handle), b.op_id, {
          act: 'unsnooze',
          seqs: rowSeqs(b.ids, gen()),
        });
      },
    },
    {
      method: 'PUT',
      pattern: '/work/people/:handle/priorities',
      query: ['op_id'],
      handler: async (req) => {
        const handle = personalHandle(req, deps.people(), req.params['handle']!);
        const b = writeBody(req, PrioritiesBody);
        return send(deps, req, handle, b.op_id, { act: 'priorities', items: b.items });
      },
    },
    {
      method: 'POST',
      pattern: '/work/views/saved',
      query: PERSON_WRITE,
      handler: async (req) => {
        const { handle, op_id, ...view } = writeBody(req, SaveViewBody);
        return send(deps, req, who(deps, req, handle), op_id, { act: 'view_save', ...view }, 201);
      },
    },
    {
      method: 'PATCH',
      pattern: '/work/views/saved/:id',
      query: PERSON_WRITE,
      handler: async (req) => {
        const { handle, op_id, ...changes } = writeBody(req, UpdateViewBody);
        const act: PersonAct = { act: 'view_update', view: viewRef(req.params['id']!), ...changes };
        return send(deps, req, who(deps, req, handle), op_id, act);
      },
    },
    {
      method: 'DELETE',
      pattern: '/work/views/saved/:id',
      query: PERSON_WRITE,
      handler: async (req) =>
        send(deps, req, who(deps, req, undefined), undefined, {
          act: 'view_delete',
          view: viewRef(req.params['id']!),
        }),
    },
    {
      method: 'POST',
      pattern: '/work/views/pinned',
      query: PERSON_WRITE,
      handler: async (req) => {
        const b = writeBody(req, PinViewBody);
        return send(deps, req, who(deps, req, b.handle), b.op_id, { act: 'pin', view: viewRef(b.view) });
      },
    },
    {
      method: 'DELETE',
      pattern: '/work/views/pinned/:view',
      query: PERSON_WRITE,
      handler: async (req) =>
        send(deps, req, who(deps, req, undefined), undefined, {
          act: 'unpin',
          view: viewRef(req.params['view']!),
        }),
    },
  ];
}
