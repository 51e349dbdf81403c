/**
 * The cursor of a pages list, read one way by `GET /pages` and the `pages_search` tool: a keyset token
 * (schema/list-cursor.ts) sealed to the list that gave it, its filters as resolved (a container's case, a
 * parent's id) and its search words. One list, one token: a cursor either gave pages the other.
 */
import { z } from 'zod';
import {
  cursorProblemText,
  decodeCursor,
  listIdentity,
  ListOrder,
  sealCursor,
  unsealCursor,
} from '../../schema/index.js';
import { searchFingerprint, type PageListQuery, type SearchPosition } from './pages.queries.js';

const TitleKey = z.tuple([z.string(), z.string()]);
const Score = z.number();

/** The list a cursor is sealed to: the filters as resolved and the search's words. */
export const pagesListIdentity = (filters: {
  readonly container?: string | undefined;
  readonly parent?: string | undefined;
  readonly q?: string | undefined;
}): string =>
  listIdentity('/pages', {
    container: filters.container,
    parent: filters.parent,
    words: filters.q === undefined ? undefined : searchFingerprint(filters.q),
  });

/** The answer's `next_cursor`: the list's token sealed to it. */
export const sealPagesCursor = (token: string | null, list: string): string | null =>
  token === null ? null : sealCursor(token, list);

export type PagesCursor = { readonly after: PageListQuery['after'] | null } | { readonly refused: string };

/**
 * Where `raw` (a previous answer's `next_cursor`; null or empty for the first page) has the list `list`
 * resume: in title order without `q`; with `q`, a word hit's or a meaning hit's place among that search's
 * hits. `refused` says how a cursor does not fit this list.
 */
export function readPagesCursor(raw: string | null, list: string, q: string | undefined): PagesCursor {
  if (raw === null || raw === '') return { after: null };
  const sealed = unsealCursor(raw, list);
  if (typeof sealed !== 'object') return { refused: cursorProblemText(sealed) };
  if (q === undefined) {
    const position = decodeCursor(sealed.token, ListOrder.PagesTitle, TitleKey);
    return typeof position === 'object' ? { after: position } : { refused: cursorProblemText(position) };
  }
  const meaning = decodeCursor(sealed.token, ListOrder.PagesMeaning, Score);
  // Anything but a meaning hit's cursor is read as a word hit's, which refuses what is neither.
  const position: SearchPosition | 'unreadable' | 'other_order' =
    typeof meaning === 'object'
      ? { ...meaning, part: 'meaning' }
      : decodeCursor(sealed.token, ListOrder.PagesRelevance, Score);
  if (typeof position !== 'object') return { refused: cursorProblemText(position) };
  // A search cursor ranks by its own words: with other words it would start at an unrelated place.
  if (position.fingerprint !== searchFingerprint(q))
    return { refused: 'was made for a search with other words' };
  return { after: position };
}
