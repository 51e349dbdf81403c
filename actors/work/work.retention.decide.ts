/**
 * The retention gestures' decision, pure (ops/work-tracker.md "Retention"): given the folded state, the
 * live nodes and the clock, the record one gesture appends and the event it is announced by, or the
 * refusal with its API error code.
 */
import {
  holderCurrent,
  retentionFloor,
  trimmedBelow,
  type RetentionCommand,
  type RetentionHolder,
  type RetentionRecord,
  type RetentionState,
} from '../../schema/index.js';
import type { Problem, Refusal } from './work.types.js';

/** A live node that acknowledged this long ago counts as current even if the head moved since. */
export const CURRENT_WITHIN_MS = 30_000;

export interface RetentionContext {
  /** Live node ids (presence); null when the fleet view is not readable (every node then counts live). */
  readonly live: ReadonlySet<string> | null;
  readonly now: Date;
  /** Newest sequence folded. */
  readonly seq: number;
  /**
   * When the oldest record the gesture's holder has not applied was stored (ms since the epoch), null when
   * it lacks none; absent when not looked up. A node idle for a while acknowledges nothing, so right after
   * a write its last acknowledgement is old though it is only between two heartbeats.
   */
  readonly lackingSinceMs?: number | null;
}

export interface RetentionAccepted {
  readonly record: RetentionRecord;
  readonly event: {
    readonly type: string;
    readonly summary: string;
    readonly payload: Record<string, unknown>;
  };
}

const refuse = (error: string, detail: string, problems: Problem[] = []): Refusal => ({
  refused: { error, detail, problems },
});
/** A gesture that changes nothing; the one problem says why, as every validation_error carries some. */
const unchanged = (detail: string): Refusal =>
  refuse('validation_error', `nothing to change: ${detail}`, [
    { path: '', message: `changes nothing: ${detail}` },
  ]);

function holderNamed(state: RetentionState, name: string): RetentionHolder | Refusal {
  return (
    state.holders.get(name) ??
    refuse('not_found', `no retention holder "${name}": GET /work/retention lists the nodes and holders`)
  );
}

/** Live and current: its presence is live and it has applied the log (or acknowledged very recently). */
export function liveAndCurrent(
  state: RetentionState,
  holder: RetentionHolder,
  ctx: RetentionContext,
): boolean {
  if (holder.kind !== 'node') return false;
  if (ctx.live !== null && !ctx.live.has(holder.name)) return false;
  if (holder.generation !== state.generation) return false;
  const recent = (ms: number): boolean => ctx.now.getTime() - ms < CURRENT_WITHIN_MS;
  return (
    holderCurrent(state, holder) ||
    recent(Date.parse(holder.acked_at)) ||
    (ctx.lackingSinceMs !== undefined && (ctx.lackingSinceMs === null || recent(ctx.lackingSinceMs)))
  );
}

/** A gesture decided here: a trim is decided against the log itself (work.retention.trim.ts). */
export type RetentionCommandOf = RetentionCommand & {
  readonly gesture: Exclude<RetentionCommand['gesture'], { kind: 'trim' }>;
};

export function decideRetention(
  state: RetentionState,
  cmd: RetentionCommandOf,
  ctx: RetentionContext,
): RetentionAccepted | Refusal {
  const base = { op_id: cmd.op_id, at: ctx.now.toISOString(), actor: cmd.actor };
  const g = cmd.gesture;
  const done = (
    record: RetentionRecord,
    type: string,
    summary: string,
    payload: Record<string, unknown>,
  ) => ({
    record,
    event: { type, summary, payload: { ...payload, by: cmd.actor } },
  });
  switch (g.kind) {
    case 'ack': {
      if (g.generation !== state.generation)
        return refuse(
          'validation_error',
          `position is of generation ${g.generation}; the log is at ${state.generation}`,
          [{ path: 'position', message: `generation ${state.generation} (GET /work/retention/reanchor)` }],
        );
      // A position below a trim is no longer in the log: what follows it is gone up to the trim.
      const from = Math.max(state.anchor.seq, trimmedBelow(state) - 1);
      if (g.seq > ctx.seq || g.seq < from)
        return refuse('validation_error', `position ${g.seq} is not in the log (${from} to ${ctx.seq})`, [
          { path: 'position', message: `a sequence from ${from} to ${ctx.seq}` },
        ]);
      const record = {
        kind: 'retention.acked',
        ...base,
        holder: g.holder,
        generation: g.generation,
        seq: g.seq,
        note: g.note,
      } as const;
      return done(record, 'work_retention_acked', `${g.holder} acknowledged the work log up to ${g.seq}`, {
        holder: g.holder,
        generation: g.generation,
        seq: g.seq,
        note: g.note,
      });
    }
    case 'evict': {
      const holder = holderNamed(state, g.holder);
      if ('refused' in holder) return holder;
      if (holder.evicted) return unchanged(`${g.holder} is evicted already`);
      if (liveAndCurrent(state, holder, ctx))
        return refuse(
          'member_live',
          `${g.holder} is live and current: it holds nothing back. Stop it, or wait until it lags, to evict it`,
        );
      return done(
        { kind: 'retention.evicted', ...base, holder: g.holder, reason: g.reason },
        'work_retention_evicted',
        `${g.holder} no longer holds the work log back`,
        {
          holder: g.holder,
          kind: holder.kind,
          seq: holder.seq,
          generation: holder.generation,
          reason: g.reason,
        },
      );
    }
    case 'readmit': {
      const holder = holderNamed(state, g.holder);
      if ('refused' in holder) return holder;
      if (!holder.evicted) return unchanged(`${g.holder} is admitted`);
      if (holder.generation !== state.generation)
        return refuse(
          'position_trimmed',
          `${g.holder} acknowledged generation ${holder.generation}; the log is at ${state.generation}: ` +
            'it must rebuild its projection (or a new acknowledgement be given) before it holds the log again',
        );
      if (holder.seq + 1 < trimmedBelow(state))
        return refuse(
          'position_trimmed',
          `${g.holder} acknowledged ${holder.seq}; the log was trimmed below ${trimmedBelow(state)}: ` +
            'it must rebuild its projection (or a new acknowledgement be given) before it holds the log again',
        );
      return done(
        { kind: 'retention.readmitted', ...base, holder: g.holder },
        'work_retention_readmitted',
        `${g.holder} holds the work log back again`,
        { holder: g.holder, seq: holder.seq, generation: holder.generation },
      );
    }
    case 'capacity': {
      const c = state.capacity;
      const next = {
        max_bytes: g.max_bytes === undefined ? c.max_bytes : g.max_bytes,
        max_records: g.max_records === undefined ? c.max_records : g.max_records,
        max_age_seconds: g.max_age_seconds === undefined ? c.max_age_seconds : g.max_age_seconds,
        auto_trim: g.auto_trim ?? c.auto_trim,
      };
      if (
        next.max_bytes === c.max_bytes &&
        next.max_records === c.max_records &&
        next.max_age_seconds === c.max_age_seconds &&
        next.auto_trim === c.auto_trim
      )
        return unchanged('the capacity is that already');
      return done(
        { kind: 'retention.capacity_set', ...base, ...next },
        'work_retention_capacity_set',
        'work log capacity set',
        next,
      );
    }
    case 'maintenance_open': {
      if (state.window)
        return refuse('maintenance_open', `maintenance window ${state.window.id} is open: abandon it first`);
      const participants = [...state.holders.values()]
        .filter((h) => h.evicted === null)
        .map((h) => h.name)
        .sort();
      const below = retentionFloor(state);
      return done(
        { kind: 'retention.maintenance_opened', ...base, below, participants, reason: g.reason },
        'work_maintenance_opened',
        `work log maintenance window opened (below ${below})`,
        { window: cmd.op_id, below, participants, reason: g.reason },
      );
    }
    case 'maintenance_exclude':
    case 'maintenance_abandon': {
      const window = state.window;
      if (!window) return refuse('no_maintenance_window', 'no maintenance window is open');
      if (g.kind === 'maintenance_abandon')
        return done(
          { kind: 'retention.maintenance_abandoned', ...base, window: window.id, reason: g.reason },
          'work_maintenance_abandoned',
          `work log maintenance window ${window.id} abandoned`,
          { window: window.id, reason: g.reason },
        );
      if (!window.participants.includes(g.holder))
        return refuse(
          'not_found',
          `${g.holder} is not a participant of window ${window.id} (${window.participants.join(', ') || 'none'})`,
        );
      if (window.excluded.includes(g.holder)) return unchanged(`${g.holder} is excluded already`);
      return done(
        {
          kind: 'retention.maintenance_excluded',
          ...base,
          window: window.id,
          holder: g.holder,
          reason: g.reason,
        },
        'work_maintenance_excluded',
        `${g.holder} excluded from work log maintenance window ${window.id}`,
        { window: window.id, holder: g.holder, reason: g.reason },
      );
    }
    case 'reanchor': {
      if (g.generation !== state.generation)
        return refuse(
          'revision_advanced',
          `the log is at generation ${state.generation}, not ${g.generation}: read it again`,
        );
      if (state.window)
        return refuse('maintenance_open', `maintenance window ${state.window.id} is open: abandon it first`);
      const generation = state.generation + 1;
      return done(
        { kind: 'retention.reanchored', ...base, generation, reason: g.reason },
        'work_reanchored',
        `work log reanchored: generation ${generation}`,
        { from: state.generation, generation, reason: g.reason },
      );
    }
  }
}
