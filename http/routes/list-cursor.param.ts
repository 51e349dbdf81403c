/**
 * The `cursor` parameter of the work tracker's and knowledge base's lists: a keyset token a previous
 * answer gave (schema/list-cursor.ts). Absent is the first page; anything else that does not read back
 * as a token of this list's order is 400 `bad_params` naming the parameter.
 */
import type { z } from 'zod';
import { decodeCursor, type ListOrder, type ListPosition } from '../../schema/index.js';
import { ApiError } from '../api-error.js';
import type { RequestHead } from '../types.js';

export function cursorParam<K extends number | string | string[]>(
  req: RequestHead,
  order: ListOrder,
  key: z.ZodType<K>,
  name = 'cursor',
  answerField = 'next',
): ListPosition<K> | null {
  const raw = req.query.get(name);
  if (raw === null || raw === '') return null;
  const position = decodeCursor(raw, order, key);
  if (typeof position === 'object') return position;
  throw new ApiError('bad_params', {
    detail:
      position === 'other_order'
        ? `\`${name}\` was made for another list or order; a cursor pages only the list that gave it.`
        : `\`${name}\` is not a cursor this list gave.`,
    hint: `Send the previous answer's \`${answerField}\` unchanged, or leave \`${name}\` out for the first page.`,
  });
}
