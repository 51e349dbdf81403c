/**
 * A person's own tracker state (ops/work-tracker.md "Inbox state and views"): the inbox rows they read or
 * snoozed, the items they put first, their saved views and the views they pinned. Each change is one
 * `person.changed` record on the work stream under `svc.work.u.<handle>`, folded here into
 * `WorkState.people`, so every node answers the same and a replay lands on the state the live fold held.
 */
import { z } from 'zod';
import { PROJECT_KEY } from '../text-grammars.js';
import { priorities, statusGroups, workStatuses } from './statuses.js';

const handle = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]*$/, 'a seat handle')
  .max(64);
const seq = z.number().int().positive();
const seqs = z.array(seq).max(200);
const viewRef = z.string().min(1).max(80);
const itemRef = z.string().min(1).max(80);

/** What a saved view lists: the `GET /work` filters it keeps. */
export const ViewFilter = z
  .object({
    // Any case names a project (keys are upper-case by their grammar), so `eng` is kept as `ENG`.
    project: z
      .string()
      .overwrite((key) => key.toUpperCase())
      .regex(PROJECT_KEY, 'a project key')
      .nullable()
      .default(null),
    status: z.array(z.enum(workStatuses)).max(6).default([]),
    group: z.array(z.enum(statusGroups)).max(4).default([]),
    // Handles are read in any case, as every /work route reads them: `Ada` is kept as `ada`.
    assignee: z
      .string()
      .overwrite((h) => h.toLowerCase())
      .pipe(handle)
      .nullable()
      .default(null),
    type: z.string().min(1).max(64).nullable().default(null),
    priority: z.enum(priorities).nullable().default(null),
    label: z.string().min(1).max(64).nullable().default(null),
    q: z.string().min(1).max(200).nullable().default(null),
  })
  .strict();
export type ViewFilter = z.infer<typeof ViewFilter>;

const layout = z.enum(['list', 'board']);
const viewName = z.string().trim().min(1).max(80);

export const SavedView = z.object({
  id: z.string(),
  name: viewName,
  layout,
  filter: ViewFilter,
  created_at: z.string(),
  updated_at: z.string(),
});
export type SavedView = z.infer<typeof SavedView>;

const viewChanges = { name: viewName.optional(), layout: layout.optional(), filter: ViewFilter.optional() };

/** The gestures a person's change carries (sent in `svc.cmd.work.write` as change kind `person`). */
export const PersonAct = z.discriminatedUnion('act', [
  /** Rows by sequence, and/or every row at or before `through`. */
  z.object({ act: z.literal('read'), seqs: seqs.default([]), through: seq.nullable().default(null) }),
  z.object({ act: z.literal('snooze'), seqs: seqs.min(1), until: z.string() }),
  z.object({ act: z.literal('unsnooze'), seqs: seqs.min(1) }),
  /** The person's own ordered priorities (item keys or ids); an empty list clears them. */
  z.object({ act: z.literal('priorities'), items: z.array(itemRef).max(50) }),
  z.object({ act: z.literal('view_save'), name: viewName, layout, filter: ViewFilter }),
  z.object({ act: z.literal('view_update'), view: viewRef, ...viewChanges }),
  z.object({ act: z.literal('view_delete'), view: viewRef }),
  z.object({ act: z.literal('pin'), view: viewRef }),
  z.object({ act: z.literal('unpin'), view: viewRef }),
]);
export type PersonAct = z.infer<typeof PersonAct>;

/** What the record keeps: the gesture as decided (a saved view with its id, priorities as item ids). */
const RecordedAct = z.discriminatedUnion('act', [
  z.object({ act: z.literal('read'), seqs: z.array(seq), through: seq.nullable() }),
  z.object({ act: z.literal('snooze'), seqs: z.array(seq), until: z.string() }),
  z.object({ act: z.literal('unsnooze'), seqs: z.array(seq) }),
  z.object({ act: z.literal('priorities'), items: z.array(z.string()) }),
  z.object({ act: z.literal('view_save'), view: SavedView }),
  z.object({ act: z.literal('view_update'), view: z.string(), ...viewChanges }),
  z.object({ act: z.literal('view_delete'), view: z.string() }),
  z.object({ act: z.literal('pin'), view: z.string() }),
  z.object({ act: z.literal('unpin'), view: z.string() }),
]);
export type RecordedAct = z.infer<typeof RecordedAct>;

export const PersonChanged = z.object({
  kind: z.literal('person.changed'),
  op_id: z.string(),
  at: z.string(),
  actor: z.string(),
  turn_id: z.string().nullable().default(null),
  /** The person's handle. */
  id: z.string(),
  act: RecordedAct,
});
export type PersonChanged = z.infer<typeof PersonChanged>;

export interface PersonState {
  readonly handle: string;
  /** Every inbox row at or before this sequence is read (0: none). */
  read_through: number;
  /** Rows after `read_through` marked read one by one. */
  readonly read: Set<number>;
  /** Row sequence -> snoozed until (RFC 3339); pruned once past at the next change. */
  readonly snoozed: Map<number, string>;
  /** Item ids in the person's order; null until they set some. */
  priorities: string[] | null;
  /** Saved views by id, in creation order. */
  readonly views: Map<string, SavedView>;
  /** Pinned view ids (built-in `KEY:layout` or saved), in pin order. */
  pinned: string[];
  updated_at: string;
}

/** Limits of one person's state (ops/work-tracker.md). */
export const PERSON_LIMITS = { views: 100, pinned: 20 } as const;

/** A built-in view id (`ENG:board`, `ENG:list`, `ENG:mine`), as its project and layout, or null. */
export function builtinViewId(id: string): { project: string; kind: string } | null {
  const m = /^([A-Z][A-Z0-9]{1,9}):(board|list|mine)$/.exec(id);
  return m ? { project: m[1]!, kind: m[2]! } : null;
}

const emptyPerson = (handle: string, at: string): PersonState => ({
  handle,
  read_through: 0,
  read: new Set(),
  snoozed: new Map(),
  priorities: null,
  views: new Map(),
  pinned: [],
  updated_at: at,
});

/** The outcome key of a change: the saved view it names, else the person's handle. */
export const personOutcomeKey = (record: PersonChanged): string => {
  const act = record.act;
  if (act.act === 'view_save') return act.view.id;
  if (act.act === 'view_update' || act.act === 'view_delete') return act.view;
  return record.id;
};

/**
 * Per person, no snooze ends before this instant (ms; it may be earlier than the earliest, never later):
 * a record before it has nothing to prune, so a fold does not parse every snooze at every record. A person
 * not here (one from a snapshot) is scanned at their next record.
 */
const snoozesEnd = new WeakMap<PersonState, number>();

/** Drops the snoozes that ended at or before `at`, as of the record's time. */
function pruneSnoozes(person: PersonState, at: number): void {
  if (at < (snoozesEnd.get(person) ?? -Infinity)) return;
  let earliest = Infinity;
  for (const [row, until] of person.snoozed) {
    const ends = Date.parse(until);
    if (ends <= at) person.snoozed.delete(row);
    else if (ends < earliest) earliest = ends;
  }
  snoozesEnd.set(person, earliest);
}

/** Folds one person record into `people` (in place). Deterministic: expiry is judged at the record's time. */
export function foldPerson(people: Map<string, PersonState>, record: PersonChanged): void {
  let person = people.get(record.id);
  if (!person) people.set(record.id, (person = emptyPerson(record.id, record.at)));
  person.updated_at = record.at;
  pruneSnoozes(person, Date.parse(record.at));
  const act = record.act;
  switch (act.act) {
    case 'read': {
      const through = person.read_through;
      if (act.through !== null && act.through > person.read_through) person.read_through = act.through;
      for (const s of act.seqs) if (s > person.read_through) person.read.add(s);
      // Every row read one by one lies above the old mark: only a mark that moved passes any.
      if (person.read_through > through)
        for (const s of person.read) if (s <= person.read_through) person.read.delete(s);
      break;
    }
    case 'snooze': {
      for (const s of act.seqs) person.snoozed.set(s, act.until);
      const ends = Date.parse(act.until);
      if (ends < (snoozesEnd.get(person) ?? -Infinity)) snoozesEnd.set(person, ends);
      break;
    }
    case 'unsnooze':
      for (const s of act.seqs) person.snoozed.delete(s);
      break;
    case 'priorities':
      person.priorities = act.items.length > 0 ? [...act.items] : null;
      break;
    case 'view_save':
      person.views.set(act.view.id, act.view);
      break;
    case 'view_update': {
      const view = person.views.get(act.view);
      if (!view) break;
      person.views.set(act.view, {
        ...view,
        ...(act.name !== undefined ? { name: act.name } : {}),
        ...(act.layout !== undefined ? { layout: act.layout } : {}),
        ...(act.filter !== undefined ? { filter: act.filter } : {}),
        updated_at: record.at,
      });
      break;
    }
    case 'view_delete':
      person.views.delete(act.view);
      person.pinned = person.pinned.filter((v) => v !== act.view);
      break;
    case 'pin':
      if (!person.pinned.includes(act.view)) person.pinned.push(act.view);
      break;
    case 'unpin':
      person.pinned = person.pinned.filter((v) => v !== act.view);
      break;
  }
}
