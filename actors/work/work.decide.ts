/**
 * The work writer's decision, pure: given the state folded so far, the projects and seats of the active
 * document and one write, the record to append, or the refusal with its API error code. The host
 * (work.host.ts) supplies the state, the clock and fresh ids; what the record sets off (task events, seat
 * wakes) is read back from the log (work.effects.ts).
 */
import {
  canMove,
  customFieldProblem,
  hasControlOrLoneSurrogate,
  isCalendarDate,
  itemByRef,
  itemVersion,
  noWorkItem,
  PURGE_REASON_MAX_BYTES,
  taskTypeNamed,
  workMoves,
  type ItemFields,
  type WorkItem,
  type WorkChange,
  type WorkRecord,
  type WorkState,
  type WorkWrite,
} from '../../schema/index.js';
import { decideFile } from './work.files.decide.js';
import { decidePerson } from './work.person.decide.js';
import type { Accepted, Fresh, Problem, Refusal, WorkContext } from './work.types.js';

const refuse = (error: string, detail: string, problems: Problem[] = []): Refusal => ({
  refused: { error, detail, problems },
});

/**
 * Problems of the fields a create sets or an update changes (seats, types, links, dates, custom fields).
 * `self` is the item an update changes (null on a create): it may not link to itself, and a link it holds
 * already is kept whatever its target has become (a purge leaves the link, read with a null key), so the
 * list read back and sent again with one more is taken. So is a seat it already names in that list (or on
 * that checklist entry) when a later revision removed the seat: only a seat newly named must exist.
 */
function fieldProblems(
  state: WorkState,
  ctx: WorkContext,
  fields: Partial<ItemFields>,
  type: string,
  self: WorkItem | null = null,
): Problem[] {
  const problems: Problem[] = [];
  const seat = (path: string, handle: string | null, held: readonly (string | null)[] = []): void => {
    if (handle !== null && !ctx.seats.has(handle) && !held.includes(handle))
      problems.push({ path, kind: 'unknown_value', message: `no seat "${handle}"` });
  };
  if (fields.type !== undefined) {
    const known = taskTypeNamed(fields.type);
    if (!known)
      problems.push({
        path: 'type',
        message: `unknown task type "${fields.type}" (see GET /work/catalogue)`,
      });
    else if (known.archived)
      problems.push({ path: 'type', message: `task type "${fields.type}" is archived` });
  }
  for (const list of ['assignees', 'watchers', 'asked_of'] as const)
    fields[list]?.forEach((h, i, all) => {
      seat(`${list}.${i}`, h, self?.fields[list]);
      // A seat named twice would be assigned (and told) twice.
      if (all.indexOf(h) !== i)
        problems.push({ path: `${list}.${i}`, kind: 'conflict', message: `"${h}" is named twice` });
    });
  // Labels and links are sets, as the seat lists are: a repeat is refused where it stands, not kept twice.
  fields.labels?.forEach((label, i, all) => {
    if (all.indexOf(label) !== i)
      problems.push({ path: `labels.${i}`, kind: 'conflict', message: `"${label}" is named twice` });
  });
  fields.links?.forEach((link, i, all) => {
    if (all.findIndex((l) => l.kind === link.kind && l.item === link.item) !== i)
      problems.push({
        path: `links.${i}`,
        kind: 'conflict',
        message: `a ${link.kind} link to ${link.item} is named twice`,
      });
  });
  if (fields.due_date != null && !isCalendarDate(fields.due_date))
    problems.push({ path: 'due_date', message: `"${fields.due_date}" is not a calendar date` });
  const heldEntries = self?.fields.checklist ?? [];
  fields.checklist?.forEach((entry, i) =>
    seat(
      `checklist.${i}.assignee`,
      entry.assignee,
      heldEntries.filter((e) => e.id === entry.id).map((e) => e.assignee),
    ),
  );
  // An entry's id names it (a tick, a held assignee): a repeat is refused where it stands, as a label's.
  fields.checklist?.forEach((entry, i, all) => {
    if (all.findIndex((e) => e.id === entry.id) !== i)
      problems.push({
        path: `checklist.${i}.id`,
        kind: 'conflict',
        message: `checklist entry "${entry.id}" is named twice`,
      });
  });
  const held = self?.fields.links ?? [];
  fields.links?.forEach((link, i) => {
    const target = itemByRef(state, link.item);
    if (!target) {
      if (!held.some((l) => l.kind === link.kind && l.item === link.item))
        problems.push({ path: `links.${i}.item`, kind: 'unknown_value', message: `no item "${link.item}"` });
    } else if (target.id === self?.id)
      problems.push({ path: `links.${i}.item`, message: 'an item cannot link to itself' });
  });
  for (const [name, value] of Object.entries(fields.fields ?? {})) {
    const problem = customFieldProblem(type, name, value);
    if (problem) problems.push({ path: `fields.${name}`, message: problem });
  }
  return problems;
}

/**
 * The fields as the record keeps them: a link names its target by key, however the write named it (any
 * case, or its id), so reads, history and the "changes nothing" check see one name. A target that names
 * nothing is left as sent for fieldProblems to refuse.
 */
function canonical<F extends Partial<ItemFields>>(state: WorkState, fields: F): F {
  if (fields.links === undefined) return fields;
  const links = fields.links.map((link) => ({
    ...link,
    item: itemByRef(state, link.item)?.key ?? link.item,
  }));
  return { ...fields, links };
}

function create(
  state: WorkState,
  ctx: WorkContext,
  write: WorkWrite,
  change: Extract<WorkChange, { kind: 'create' }>,
  fresh: Fresh,
  defaults: Omit<ItemFields, 'title'>,
): Accepted | Refusal {
  // Project keys are upper-case by their grammar, so any case names the project (as item keys do).
  const wanted = change.project.toUpperCase();
  const project = ctx.projects.find((p) => p.key === wanted);
  if (!project)
    return refuse('no_project', `no project "${change.project}" (units declare integrations.work.project)`);
  if (project.archived)
    return refuse('validation_error', `project ${project.key} is archived`, [
      { path: 'project', message: 'archived' },
    ]);
  const given = canonical(state, change.fields);
  const fields: ItemFields = { ...defaults, ...given };
  const problems = fieldProblems(state, ctx, given, fields.type);
  if (problems.length > 0) return refuse('validation_error', 'the item does not fit', problems);
  const number = (state.counters.get(project.key) ?? 0) + 1;
  const key = `${project.key}-${number}`;
  const at = fresh.now.toISOString();
  const record: WorkRecord = {
    kind: 'item.created',
    op_id: write.op_id,
    at,
    actor: write.actor,
    turn_id: write.turn_id,
    id: fresh.id,
    project: project.key,
    key,
    number,
    status: change.status ?? 'backlog',
    fields,
  };
  return { project: project.key, record };
}

/** Decides one write against `state`. */
export function decideWork(
  state: WorkState,
  ctx: WorkContext,
  write: WorkWrite,
  fresh: Fresh,
  defaults: Omit<ItemFields, 'title'>,
): Accepted | Refusal {
  const change = write.change;
  if (change.kind === 'create') return create(state, ctx, write, change, fresh, defaults);
  if (change.kind === 'person') return decidePerson(state, ctx, write, change.handle, change.act, fresh);
  if (change.kind === 'file_put' || change.kind === 'file_delete')
    return decideFile(state, ctx, write, change, fresh.now);
  const item = itemByRef(state, change.item);
  if (!item) return refuse('not_found', noWorkItem(change.item));
  // Decided in log order, so of two changes made against one version only the first is taken.
  const version = itemVersion(item);
  if (change.if_match !== undefined && change.if_match !== version)
    return refuse('revision_advanced', `${item.key} is at version ${version}, not ${change.if_match}`);
  const base = {
    op_id: write.op_id,
    at: fresh.now.toISOString(),
    actor: write.actor,
    turn_id: write.turn_id,
    id: item.id,
  };
  switch (change.kind) {
    case 'update': {
      const entries = Object.entries(canonical(state, change.changes)).filter(
        ([name, value]) =>
          JSON.stringify((item.fields as Record<string, unknown>)[name]) !== JSON.stringify(value),
      );
      if (entries.length === 0) {
        const detail =
          Object.keys(change.changes).length === 0
            ? 'nothing to change: the body names no field'
            : 'nothing to change: every field given has that value already';
        return refuse('validation_error', detail, [{ path: '', message: unchanged(change.changes) }]);
      }
      const changes = Object.fromEntries(entries) as Partial<ItemFields>;
      // A new type judges the custom fields the item keeps too, as a create of that type would.
      const checked =
        changes.type === undefined ? changes : { ...changes, fields: changes.fields ?? item.fields.fields };
      const problems = fieldProblems(state, ctx, checked, changes.type ?? item.fields.type, item);
      if (problems.length > 0) return refuse('validation_error', 'the change does not fit', problems);
      return { project: item.project, record: { kind: 'item.updated', ...base, changes } };
    }
    case 'move': {
      if (!canMove(item.status, change.to))
        return refuse('validation_error', `${item.key} cannot move from ${item.status} to ${change.to}`, [
          { path: 'to', message: `from ${item.status}: ${workMoves[item.status].join(', ')}` },
        ]);
      return {
        project: item.project,
        record: { kind: 'item.moved', ...base, from: item.status, to: change.to },
      };
    }
    case 'comment': {
      const comment = { id: fresh.commentId, author: write.actor, body: change.body, at: base.at };
      return { project: item.project, record: { kind: 'item.commented', ...base, comment } };
    }
    case 'purge': {
      const problems: Problem[] = [];
      // Keys are upper-case by their grammar: a confirmation in any case names the item, as a path does.
      if (change.confirm.toUpperCase() !== item.key)
        problems.push({ path: 'confirm', message: `must repeat the key ${item.key}` });
      if (change.project.toUpperCase() !== item.project)
        problems.push({ path: 'project', message: `${item.key} is in ${item.project}` });
      const confirmed = problems.length === 0;
      const reasonProblem = purgeReasonProblem(change.reason);
      if (reasonProblem) problems.push({ path: 'reason', message: reasonProblem });
      // A confirmed purge refused for its reason alone says so: "not confirmed" would send the caller
      // to re-check a key and project that were right.
      if (problems.length > 0)
        return refuse(
          'validation_error',
          confirmed ? `the purge reason is refused: ${reasonProblem}` : 'the purge is not confirmed',
          problems,
        );
      return {
        project: item.project,
        record: { kind: 'item.purged', ...base, reason: noticeLine(change.reason) },
      };
    }
  }
}

/** The problem of an update that changes nothing: which fields already hold what it gives. */
function unchanged(changes: Partial<ItemFields>): string {
  const names = Object.keys(changes);
  return names.length === 0
    ? 'changes nothing: the body names no field to change'
    : `changes nothing: ${names.join(', ')} already ${names.length === 1 ? 'has' : 'have'} that value`;
}

/** The reason as it stands on the notice line: one line, whitespace runs as one space. */
export const noticeLine = (reason: string): string => reason.replace(/\s+/g, ' ').trim();

/**
 * Why a purge reason is refused (spec "Limits": 600 bytes on the notice line), or null. Whitespace (tabs,
 * line breaks) folds into the line; any other control character (a NUL, a NEL) or a lone surrogate would
 * stand on it as is, so it is refused as a title's is.
 */
export function purgeReasonProblem(reason: string): string | null {
  const line = noticeLine(reason);
  if (line === '') return 'required';
  if (hasControlOrLoneSurrogate(line))
    return 'one line of text: no control characters (besides whitespace) or lone surrogates';
  const bytes = Buffer.byteLength(line, 'utf8');
  return bytes > PURGE_REASON_MAX_BYTES
    ? `${bytes} bytes on the notice line; at most ${PURGE_REASON_MAX_BYTES}`
    : null;
}
