/**
 * The writer's decision on a person's own state (ops/work-tracker.md "Inbox state and views"): rows must
 * be in the log, a snooze must end in the future, priorities name items, views fit the document's
 * projects. Pure, like the item decisions; the host has already checked the handle is a human seat.
 */
import {
  builtinViewId,
  itemByRef,
  parseInstant,
  PERSON_LIMITS,
  type PersonAct,
  type WorkRecord,
  type WorkState,
  type WorkWrite,
} from '../../schema/index.js';
import type { Accepted, Fresh, Problem, Refusal, WorkContext } from './work.types.js';

/** A snooze ends at most this far ahead. */
const SNOOZE_MAX_MS = 366 * 24 * 3600 * 1000;

const refuse = (error: string, detail: string, problems: Problem[] = []): Refusal => ({
  refused: { error, detail, problems },
});

/** True when an activity row (an inbox row) was stored at `seq`; rows are in log order. */
function rowExists(state: WorkState, seq: number): boolean {
  const rows = state.activity.rows();
  let lo = 0;
  let hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (rows[mid]!.seq < seq) lo = mid + 1;
    else hi = mid;
  }
  return rows[lo]?.seq === seq;
}

const rowProblems = (state: WorkState, seqs: readonly number[]): Problem[] =>
  seqs.flatMap((s, i) => (rowExists(state, s) ? [] : [{ path: `ids.${i}`, message: 'no such inbox row' }]));

function viewProblem(ctx: WorkContext, project: string | null): Problem[] {
  if (project === null || ctx.projects.some((p) => p.key === project)) return [];
  return [{ path: 'filter.project', message: `no project "${project}"` }];
}

export function decidePerson(
  state: WorkState,
  ctx: WorkContext,
  write: WorkWrite,
  handle: string,
  act: PersonAct,
  fresh: Fresh,
): Accepted | Refusal {
  const person = state.people.get(handle);
  const at = fresh.now.toISOString();
  const accept = (recorded: Extract<WorkRecord, { kind: 'person.changed' }>['act']): Accepted => ({
    project: '',
    record: {
      kind: 'person.changed',
      op_id: write.op_id,
      at,
      actor: write.actor,
      turn_id: write.turn_id,
      id: handle,
      act: recorded,
    },
  });
  switch (act.act) {
    case 'read': {
      const problems = rowProblems(state, act.seqs);
      if (act.through !== null && act.through > state.seq)
        problems.push({ path: 'all_before', message: `past the log's head (${state.seq})` });
      if (problems.length > 0) return refuse('validation_error', 'the rows are not in the inbox', problems);
      return accept({ act: 'read', seqs: [...new Set(act.seqs)], through: act.through });
    }
    case 'snooze': {
      // Strict RFC 3339: `Date.parse` would roll `2027-02-30` over to March 2 and read a stamp without
      // an offset in the node's own time zone.
      const until = parseInstant(act.until)?.ms ?? NaN;
      const problems = rowProblems(state, act.seqs);
      if (Number.isNaN(until)) problems.push({ path: 'until', message: 'an RFC 3339 instant' });
      else if (until <= fresh.now.getTime())
        problems.push({ path: 'until', message: 'must be in the future' });
      else if (until - fresh.now.getTime() > SNOOZE_MAX_MS)
        problems.push({ path: 'until', message: 'at most 366 days ahead' });
      if (problems.length > 0) return refuse('validation_error', 'the snooze does not fit', problems);
      return accept({ act: 'snooze', seqs: [...new Set(act.seqs)], until: new Date(until).toISOString() });
    }
    case 'unsnooze': {
      const problems = rowProblems(state, act.seqs);
      if (problems.length > 0) return refuse('validation_error', 'the rows are not in the inbox', problems);
      return accept({ act: 'unsnooze', seqs: [...new Set(act.seqs)] });
    }
    case 'priorities': {
      const problems: Problem[] = [];
      const ids: string[] = [];
      act.items.forEach((ref, i) => {
        const item = itemByRef(state, ref);
        if (!item) problems.push({ path: `items.${i}`, kind: 'unknown_value', message: `no item "${ref}"` });
        else if (!ids.includes(item.id)) ids.push(item.id);
      });
      if (problems.length > 0) return refuse('validation_error', 'the priorities do not fit', problems);
      return accept({ act: 'priorities', items: ids });
    }
    case 'view_save': {
      if ((person?.views.size ?? 0) >= PERSON_LIMITS.views)
        return refuse('validation_error', `at most ${PERSON_LIMITS.views} saved views per person`, [
          {
            path: '',
            kind: 'out_of_range',
            message: `${handle} keeps ${PERSON_LIMITS.views} saved views already; delete one first`,
          },
        ]);
      const problems = viewProblem(ctx, act.filter.project);
      if (problems.length > 0) return refuse('validation_error', 'the view does not fit', problems);
      const { act: _act, ...view } = act;
      return accept({ act: 'view_save', view: { id: fresh.id, ...view, created_at: at, updated_at: at } });
    }
    case 'view_update': {
      const view = person?.views.get(act.view);
      if (!view) return refuse('not_found', `no saved view "${act.view}" of ${handle}`);
      const problems = act.filter ? viewProblem(ctx, act.filter.project) : [];
      if (problems.length > 0) return refuse('validation_error', 'the view does not fit', problems);
      const changes = { name: act.name, layout: act.layout, filter: act.filter };
      const changed = Object.entries(changes).filter(
        ([k, v]) => v !== undefined && JSON.stringify(v) !== JSON.stringify(view[k as keyof typeof view]),
      );
      if (changed.length === 0) {
        const given = Object.keys(changes).filter((k) => changes[k as keyof typeof changes] !== undefined);
        const detail =
          given.length === 0
            ? 'nothing to change: the body names no field'
            : 'nothing to change: every field given has that value already';
        return refuse('validation_error', detail, [
          {
            path: '',
            message: `changes nothing: ${given.length === 0 ? 'the body names no field to change' : `${given.join(', ')} already as given`}`,
          },
        ]);
      }
      return accept({ act: 'view_update', view: act.view, ...Object.fromEntries(changed) });
    }
    case 'view_delete':
      if (!person?.views.has(act.view))
        return refuse('not_found', `no saved view "${act.view}" of ${handle}`);
      return accept({ act: 'view_delete', view: act.view });
    case 'pin': {
      const builtin = builtinViewId(act.view);
      const known = builtin
        ? ctx.projects.some((p) => p.key === builtin.project && !p.archived)
        : (person?.views.has(act.view) ?? false);
      if (!known)
        return refuse('not_found', `no view "${act.view}" (a built-in KEY:board|list|mine or a saved view)`);
      if (!person?.pinned.includes(act.view) && (person?.pinned.length ?? 0) >= PERSON_LIMITS.pinned)
        return refuse('validation_error', `at most ${PERSON_LIMITS.pinned} pinned views per person`, [
          {
            path: 'view',
            kind: 'out_of_range',
            message: `${handle} pins ${PERSON_LIMITS.pinned} views already; unpin one first`,
          },
        ]);
      return accept({ act: 'pin', view: act.view });
    }
    case 'unpin':
      if (!person?.pinned.includes(act.view)) return refuse('not_found', `"${act.view}" is not pinned`);
      return accept({ act: 'unpin', view: act.view });
  }
}
