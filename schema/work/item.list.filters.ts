/**
 * The filters of the item listing, read one way by `GET /work` and the `work_list` tool (ops/work-tracker.md
 * "Reads", "Seat tools"): their names, the closed sets a value must be in, the search text's cap, and how a
 * value is resolved (an empty one is none; a project key in any case, a seat handle in any case). The route
 * hands over its query parameters, the tool its arguments; both refuse what one refuses, worded alike.
 */
import { z } from 'zod';
import { SEARCH_TEXT_MAX } from '../query-ranges.js';
import type { ItemListFilters } from './item.list.cursor.js';
import { priorities, statusGroups, workStatuses } from './statuses.js';

/** The filters, by the names the route reads and the tool takes: they define the list a cursor pages. */
export const itemListFilterNames = [
  'project',
  'status',
  'group',
  'assignee',
  'type',
  'priority',
  'label',
  'q',
] as const;

/** The filters as a caller sends them: a status or group list, the rest one text each (absent: none). */
export interface ItemFilterInput {
  readonly project: string | null;
  readonly status: readonly string[];
  readonly group: readonly string[];
  readonly assignee: string | null;
  readonly type: string | null;
  readonly priority: string | null;
  readonly label: string | null;
  readonly q: string | null;
}

/** Why a filter is refused (400 `bad_params` on the route, `Refused (bad_params)` from the tool). */
export interface ItemFilterRefusal {
  readonly refused: string;
  readonly hint?: string;
}

/** Why a search text is refused: past {@link SEARCH_TEXT_MAX} characters, counted as code points. */
export function searchTextProblem(q: string, name = 'q'): ItemFilterRefusal | null {
  if ([...q].length <= SEARCH_TEXT_MAX) return null;
  return {
    refused: `\`${name}\` needs at most ${SEARCH_TEXT_MAX} characters.`,
    hint: `Search with fewer words, or leave \`${name}\` out to read without a search.`,
  };
}

const orNull = (value: string | null): string | null => (value === null || value === '' ? null : value);

/**
 * The filters `input` names, resolved as the listing reads them, or why one is refused: a status, group or
 * priority outside its closed set (a typo is refused, not answered as "nothing matches"), a search text
 * past its cap. An unknown project, assignee, type or label is a filter that matches nothing.
 */
export function readItemFilters(input: ItemFilterInput): ItemListFilters | ItemFilterRefusal {
  const statuses = input.status.filter((s) => s !== '');
  const groups = input.group.filter((g) => g !== '');
  for (const s of statuses)
    if (!(workStatuses as readonly string[]).includes(s)) return { refused: `unknown status "${s}"` };
  for (const g of groups)
    if (!(statusGroups as readonly string[]).includes(g)) return { refused: `unknown group "${g}"` };
  const priority = orNull(input.priority);
  if (priority !== null && !(priorities as readonly string[]).includes(priority))
    return { refused: `unknown priority "${priority}" (one of ${priorities.join(', ')})` };
  const q = orNull(input.q);
  const long = q === null ? null : searchTextProblem(q);
  if (long) return long;
  return {
    // Keys are upper-case and handles lower-case by their grammar, so any case names the project or seat.
    project: orNull(input.project)?.toUpperCase() ?? null,
    statuses,
    groups,
    assignee: orNull(input.assignee)?.toLowerCase() ?? null,
    type: orNull(input.type),
    priority,
    label: orNull(input.label),
    q,
  };
}

/** A filter that takes one value or several (the route reads a comma list): as a tool argument. */
const oneOrMore = <T extends readonly [string, ...string[]]>(values: T) =>
  z.union([z.enum(values), z.array(z.enum(values)).max(values.length)]);

/**
 * The filters as `work_list` arguments, each the route's parameter of that name. The search text's cap is
 * judged by {@link readItemFilters} (code points, as the route counts), not here.
 */
export const ItemListFilterArgs = z.object({
  project: z.string().optional().describe('Project key (ENG), in any case.'),
  status: oneOrMore(workStatuses).optional().describe('A status, or a list of them: items in any of them.'),
  group: oneOrMore(statusGroups)
    .optional()
    .describe('A status group (todo, active, done, closed), or a list of them.'),
  assignee: z.string().optional().describe('A seat handle; `me` for yourself.'),
  type: z.string().optional().describe('A task type (task, bug, feature, chore, question).'),
  priority: z.enum(priorities).optional(),
  label: z.string().optional().describe('A label, as written (`ui` and `UI` are two).'),
  q: z
    .string()
    .optional()
    .describe(`Words from the key, title or description; at most ${SEARCH_TEXT_MAX} characters.`),
});
