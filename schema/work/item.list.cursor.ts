/**
 * The cursor of the item listing, read one way by `GET /work` and the `work_list` tool: a keyset token
 * (list-cursor.ts) sealed to the list that gave it, its filters as resolved. One list, one token: a
 * cursor either gave pages the other.
 */
import {
  cursorProblemText,
  decodeCursor,
  listIdentity,
  ListOrder,
  sealCursor,
  SeqKey,
  unsealCursor,
  type ListPosition,
} from '../list-cursor.js';
import type { ItemQuery } from './item.list.js';
import type { WorkState } from './state.js';

/** The filters that define the list (the limit does not). */
export type ItemListFilters = Omit<ItemQuery, 'limit' | 'after'>;

/** The list a cursor is sealed to: `q` in any case, a status or group list in any order, is one list. */
export const itemListIdentity = (filters: ItemListFilters): string =>
  listIdentity('/work', {
    project: filters.project,
    assignee: filters.assignee,
    type: filters.type,
    priority: filters.priority,
    label: filters.label,
    q: filters.q?.toLowerCase(),
    status: [...new Set(filters.statuses)].sort(),
    group: [...new Set(filters.groups)].sort(),
  });

/** The answer's `next`: the listing's token sealed to its list. */
export const sealItemListCursor = (token: string | null, list: string): string | null =>
  token === null ? null : sealCursor(token, list);

export type ItemListCursor = { readonly after: ListPosition<number> | null } | { readonly refused: string };

/**
 * Where `raw` (a previous answer's `next`; null or empty for the first page) has the list `list` resume;
 * `refused` says how a cursor does not fit it.
 */
export function readItemListCursor(state: WorkState, raw: string | null, list: string): ItemListCursor {
  if (raw === null || raw === '') return { after: null };
  const sealed = unsealCursor(raw, list);
  const after =
    typeof sealed === 'object' ? decodeCursor(sealed.token, ListOrder.WorkNewest, SeqKey) : sealed;
  if (typeof after !== 'object') return { refused: cursorProblemText(after) };
  // The cursor's item, if it is still there, was created by the record the cursor names; a purged one
  // (between two pages) is known by its id and pages on from its place.
  const item = state.items.get(after.id);
  if (item ? state.index.ordinal.get(item) !== after.key : !state.everKeys.has(after.id))
    return { refused: 'names no item of this list' };
  return { after };
}
