/**
 * The `cursor` parameter of the work tracker's and knowledge base's lists: a keyset token a previous
 * answer gave (schema/list-cursor.ts), sealed to the list that gave it. Absent is the first page; anything
 * else that does not read back as a token of this list — another order, other filters, another item, an
 * altered token — is 400 `bad_params` naming the parameter.
 */
import type { z } from 'zod';
import {
  cursorProblemText,
  decodeCursor,
  sealCursor,
  unsealCursor,
  type ListOrder,
  type ListPosition,
} from '../../schema/index.js';
import { ApiError } from '../api-error.js';
import type { RequestHead } from '../types.js';
import { singleParam } from './single.param.js';

/** A cursor refused: `why` says how it does not fit this list. */
export function cursorRefused(why: string, name = 'cursor', answerField = 'next'): ApiError {
  return new ApiError('bad_params', {
    detail: `\`${name}\` ${why}; a cursor pages only the list that gave it.`,
    hint: `Send the previous answer's \`${answerField}\` unchanged with the same filters, or leave \`${name}\` out for the first page.`,
  });
}

/** `list`: the list's identity (`listIdentity`), the same the answer's `next` was sealed with. */
export function cursorParam<K extends number | string | string[]>(
  req: RequestHead,
  order: ListOrder,
  key: z.ZodType<K>,
  list: string,
  name = 'cursor',
  answerField = 'next',
): ListPosition<K> | null {
  const raw = singleParam(req, name, 'bad_params');
  if (raw === null || raw === '') return null;
  const sealed = unsealCursor(raw, list);
  const position = typeof sealed === 'object' ? decodeCursor(sealed.token, order, key) : sealed;
  if (typeof position === 'object') return position;
  throw cursorRefused(cursorProblemText(position), name, answerField);
}

/** The answer's `next`: the projection's token sealed to this list. */
export const sealNext = (token: string | null, list: string): string | null =>
  token === null ? null : sealCursor(token, list);
