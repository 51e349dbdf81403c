/**
 * `/work/retention*` (ops/work-tracker.md "Retention"): the work log's retention status, maintenance
 * window and creation stamp, and the operators' gestures. Guarded always (spec "Authentication" 2) and
 * operator-only: with the guard disabled the anonymous caller is refused 403 `guard_disabled`. Every
 * gesture goes to the work host as a command and answers once this node's projection shows it.
 */
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import {
  formatPosition,
  generationAt,
  holderCurrent,
  MaintenanceAbandonBody,
  MaintenanceExcludeBody,
  MaintenanceOpenBody,
  overCapacity,
  parsePosition,
  ReanchorBody,
  RetentionAckBody,
  RetentionCapacityBody,
  RetentionEvictBody,
  RetentionReadmitBody,
  retentionFloor,
  TrimBody,
  WORK_STREAM,
  type MaintenanceWindow,
  type RetentionGesture,
  type RetentionHolder,
  type RetentionState,
} from '../../../schema/index.js';
import { ApiError, bodyProblems } from '../../api-error.js';
import type { ApiReply, ApiRequest, RouteDef } from '../../types.js';
import type { WorkRouteDeps } from './work.deps.js';
import { opIdOf, writeBody } from '../op-id.param.js';
import { actorOf, holderRef, refusal } from './work.params.js';

const READ_BACK_MS = 10_000;

function operatorOnly(req: ApiRequest): void {
  if (req.actor?.kind !== 'operator')
    throw new ApiError('guard_disabled', {
      detail:
        'the work log retention is an operator surface: with the guard disabled the caller is anonymous',
    });
}

function holderRow(r: RetentionState, h: RetentionHolder, live: ReadonlySet<string> | null) {
  return {
    name: h.name,
    kind: h.kind,
    position: formatPosition(h.seq, h.generation),
    generation: h.generation,
    seq: h.seq,
    acked_at: h.acked_at,
    acked_by: h.acked_by,
    live: h.kind === 'node' ? (live === null ? null : live.has(h.name)) : null,
    current: holderCurrent(r, h),
    behind: h.generation === r.generation ? Math.max(0, r.head - h.seq) : null,
    admitted: h.evicted === null,
    evicted: h.evicted,
  };
}

function windowView(w: MaintenanceWindow | null) {
  if (!w) return null;
  return {
    id: w.id,
    state: w.state,
    opened_at: w.opened_at,
    opened_by: w.opened_by,
    reason: w.reason,
    below: formatPosition(w.below, w.generation),
    participants: w.participants,
    excluded: w.excluded,
    waiting_on: w.state === 'open' ? w.participants.filter((p) => !w.excluded.includes(p)) : [],
    closed: w.closed,
  };
}

/** `below`: what a trim now could remove below (the floor); `last`: the last trim, or null. */
const trimView = (r: RetentionState) => ({
  available: true,
  below: formatPosition(retentionFloor(r), r.generation),
  last: r.trim && {
    op_id: r.trim.op_id,
    at: r.trim.at,
    by: r.trim.by,
    below: formatPosition(r.trim.below, r.trim.generation),
    snapshot: formatPosition(r.trim.snapshot_seq, r.trim.generation),
    records: r.trim.records,
    bytes: r.trim.bytes,
    position: formatPosition(r.trim.seq, generationAt(r, r.trim.seq)),
  },
});

function anchorView(r: RetentionState) {
  return {
    stream: WORK_STREAM,
    generation: r.generation,
    anchored_at: r.anchor.at,
    anchored_by: r.anchor.by,
    position: r.anchor.at === null ? null : formatPosition(r.anchor.seq, r.generation - 1),
    reason: r.anchor.reason,
  };
}

async function status(deps: WorkRouteDeps): Promise<ApiReply> {
  const state = deps.state();
  const r = state.retention;
  const roster = await deps.roster();
  const live = roster === null ? null : new Set(roster);
  const now = (deps.now ?? (() => new Date()))();
  const floor = retentionFloor(r);
  const holders = [...r.holders.values()].sort((a, b) => a.name.localeCompare(b.name));
  const admitted = holders.filter((h) => h.evicted === null);
  const atFloor = (h: RetentionHolder) => (h.generation === r.generation ? h.seq : 0) === floor;
  // A status that cannot read the consumer still answers: the position is then unknown (null).
  const acknowledged = await deps.effectsAcknowledged?.().catch(() => null);
  return {
    status: 200,
    body: {
      stream: WORK_STREAM,
      generation: r.generation,
      head: formatPosition(r.head, r.generation),
      log: {
        records: r.log.records,
        bytes: r.log.bytes,
        first_at: r.log.first_at,
        age_seconds:
          r.log.first_at === null ? 0 : Math.floor((now.getTime() - Date.parse(r.log.first_at)) / 1000),
      },
      capacity: r.capacity,
      over_capacity: overCapacity(r, now),
      floor: formatPosition(floor, r.generation),
      held_by: admitted.filter(atFloor).map((h) => h.name),
      holders: holders.map((h) => holderRow(r, h, live)),
      maintenance: windowView(r.window),
      trim: trimView(r),
      effects: {
        consumer: 'work_effects',
        acknowledged_through:
          acknowledged === undefined || acknowledged === null
            ? null
            : formatPosition(acknowledged, r.generation),
      },
    },
  };
}

/** Sends one gesture and answers its outcome once this node's projection shows it. */
async function send(
  deps: WorkRouteDeps,
  req: ApiRequest,
  op_id: string,
  gesture: RetentionGesture,
  view: (r: RetentionState) => Record<string, unknown>,
): Promise<ApiReply> {
  const reply = refusal(await deps.retention({ op_id, actor: actorOf(req, deps.people()), gesture }));
  await deps.until(reply.seq, READ_BACK_MS);
  return {
    status: 200,
    body: {
      op_id: reply.op_id,
      outcome: reply.repeated ? 'repeated' : 'applied',
      kind: reply.kind,
      position: reply.position,
      ...view(deps.state().retention),
    },
  };
}

const holderOf = (name: string) => (r: RetentionState) => {
  const h = r.holders.get(name);
  return { holder: h ? holderRow(r, h, null) : null };
};

/** An operator-only route whose body is validated by `schema` (before anything is sent). */
function gestureRoute<T extends { op_id?: string | undefined }>(
  deps: WorkRouteDeps,
  pattern: string,
  schema: z.ZodType<T>,
  make: (
    body: T,
    req: ApiRequest,
    opId: string,
  ) => { gesture: RetentionGesture; view: (r: RetentionState) => Record<string, unknown> },
): RouteDef {
  return {
    method: 'POST',
    pattern,
    query: ['op_id'],
    handler: async (req) => {
      operatorOnly(req);
      const body = writeBody(req, schema);
      const opId = opIdOf(req, body.op_id, randomUUID);
      const { gesture, view } = make(body, req, opId);
      return send(deps, req, opId, gesture, view);
    },
  };
}

function ackGesture(body: z.infer<typeof RetentionAckBody>): RetentionGesture {
  const position = parsePosition(body.position);
  if (!position || position.stream !== WORK_STREAM)
    throw new ApiError('invalid_body', {
      detail: 'The body does not fit the route (see `problems`).',
      extra: {
        problems: bodyProblems([
          {
            path: ['position'],
            code: 'custom',
            message: `a position ${WORK_STREAM}@<generation>:<sequence>`,
          },
        ]),
      },
    });
  return {
    kind: 'ack',
    holder: body.holder,
    generation: position.generation,
    seq: position.seq,
    note: body.note ?? '',
  };
}

export function workRetentionRoutes(deps: WorkRouteDeps): RouteDef[] {
  const read = (pattern: string, answer: () => Promise<ApiReply> | ApiReply): RouteDef => ({
    method: 'GET',
    pattern,
    query: [],
    handler: (req) => {
      operatorOnly(req);
      return answer();
    },
  });
  const node = (req: ApiRequest) => holderRef(req.params['node']!);
  return [
    read('/work/retention', () => status(deps)),
    read('/work/retention/maintenance', () => {
      const r = deps.state().retention;
      return {
        status: 200,
        body: { window: windowView(r.window), last: windowView(r.lastWindow), trim: trimView(r) },
      };
    }),
    read('/work/retention/reanchor', () => ({ status: 200, body: anchorView(deps.state().retention) })),
    gestureRoute(deps, '/work/retention/ack', RetentionAckBody, (body) => ({
      gesture: ackGesture(body),
      view: holderOf(body.holder),
    })),
    gestureRoute(deps, '/work/retention/evict/:node', RetentionEvictBody, (body, req) => ({
      gesture: { kind: 'evict', holder: node(req), reason: body.reason ?? '' },
      view: holderOf(node(req)),
    })),
    gestureRoute(deps, '/work/retention/readmit/:node', RetentionReadmitBody, (_body, req) => ({
      gesture: { kind: 'readmit', holder: node(req) },
      view: holderOf(node(req)),
    })),
    gestureRoute(deps, '/work/retention/capacity', RetentionCapacityBody, ({ op_id: _op, ...limits }) => ({
      gesture: { kind: 'capacity', ...limits },
      view: (r) => ({ capacity: r.capacity }),
    })),
    gestureRoute(deps, '/work/retention/maintenance', MaintenanceOpenBody, (body, _req, opId) => ({
      gesture: { kind: 'maintenance_open', reason: body.reason ?? '' },
      // The window this op_id opened (a retry after it closed finds it as the last one).
      view: (r) => ({ window: windowView([r.window, r.lastWindow].find((w) => w?.id === opId) ?? null) }),
    })),
    gestureRoute(deps, '/work/retention/maintenance/exclude', MaintenanceExcludeBody, (body) => ({
      gesture: { kind: 'maintenance_exclude', holder: body.node, reason: body.reason ?? '' },
      view: (r) => ({ window: windowView(r.window ?? r.lastWindow) }),
    })),
    gestureRoute(deps, '/work/retention/maintenance/abandon', MaintenanceAbandonBody, (body) => ({
      gesture: { kind: 'maintenance_abandon', reason: body.reason ?? '' },
      view: (r) => ({ window: windowView(r.lastWindow) }),
    })),
    gestureRoute(deps, '/work/retention/reanchor', ReanchorBody, (body) => ({
      gesture: { kind: 'reanchor', generation: body.generation, reason: body.reason },
      view: (r) => anchorView(r),
    })),
    gestureRoute(deps, '/work/retention/trim', TrimBody, () => ({
      gesture: { kind: 'trim' },
      view: (r) => ({ trim: trimView(r).last, log: r.log }),
    })),
  ];
}
