/**
 * Parameter readers of the history questions (`event_series`, `turns`, `turn`, `phases`): a question names
 * the parameters it reads, and anything else, a parameter given twice, or a value outside its set answers
 * 400 `bad_params` with what was wrong and what would be right (a typo never silently widens a read).
 */
import { EventCategory, parseCursorInstant, unreadParam, type Instant } from '../../schema/index.js';
import { QueryError } from '../query/query-error.js';

export const HISTORY_PAGE_DEFAULT = 50;
export const HISTORY_PAGE_MAX = 400;

const categories = new Set<string>(Object.values(EventCategory));

/** Refuses a parameter the question does not read, naming it (and the one meant, for a near miss). */
export function onlyKnown(params: URLSearchParams, what: string, known: readonly string[]): void {
  const unread = unreadParam(params.keys(), what, known);
  if (unread) throw new QueryError('bad_params', unread.detail, unread.hint);
}

/** One value of a parameter given at most once; absent or blank reads as undefined. */
export function one(params: URLSearchParams, name: string): string | undefined {
  const all = params.getAll(name);
  if (all.length > 1)
    throw new QueryError('bad_params', `${name} is given more than once`, `Give ${name} once.`);
  const v = all[0]?.trim();
  return v === undefined || v === '' ? undefined : v;
}

/** A whole number ≥ 1; above `max` is clamped to it. */
export function wholeParam(params: URLSearchParams, name: string, fallback: number, max: number): number {
  const text = one(params, name);
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text) || Number(text) < 1)
    throw new QueryError(
      'bad_params',
      `${name} must be a whole number from 1 to ${max}`,
      `Pass ${name} as digits, 1 or more; values above ${max} read as ${max}.`,
    );
  return Math.min(max, Number(text));
}

export function categoryParam(params: URLSearchParams): EventCategory | undefined {
  const c = one(params, 'category');
  if (c !== undefined && !categories.has(c))
    throw new QueryError(
      'bad_params',
      `category must be one of ${[...categories].join(', ')}`,
      'Pick one category from the list, or leave category out for every category.',
    );
  return c as EventCategory | undefined;
}

export function boolParam(params: URLSearchParams, name: string): boolean {
  const v = one(params, name);
  if (v !== undefined && v !== 'true' && v !== 'false')
    throw new QueryError(
      'bad_params',
      `${name} must be true or false`,
      `Pass ${name}=true or ${name}=false, or leave it out (false).`,
    );
  return v === 'true';
}

export interface Cursor {
  readonly instant: Instant;
  readonly id: string;
}

/** The exclusive keyset cursor: `before_time` + `before_id`, both halves or neither. */
export function cursorParam(params: URLSearchParams): Cursor | null {
  const beforeTime = one(params, 'before_time');
  const beforeId = one(params, 'before_id');
  if ((beforeTime === undefined) !== (beforeId === undefined))
    throw new QueryError(
      'bad_params',
      'the cursor has two halves: give before_time and before_id together (both from `next`)',
      'Pass both halves of `next` from the previous page, or neither for the newest page.',
    );
  if (beforeTime === undefined || beforeId === undefined) return null;
  const instant = parseCursorInstant(beforeTime);
  if (instant === null)
    throw new QueryError(
      'bad_params',
      'before_time is not an RFC 3339 timestamp',
      'Pass before_time and before_id as the previous page’s `next` gives them.',
    );
  return { instant, id: beforeId };
}

export const PAGE_PARAMS = ['limit', 'before_time', 'before_id'] as const;
export const SEAT_PARAMS = ['agent_id', 'seat'] as const;
