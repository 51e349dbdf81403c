/**
 * An integer query parameter of a read (`limit`, `offset`), the same on every list: absent or empty is
 * the range's `fallback`; anything but decimal digits within `min..max` is 400 `bad_params` naming the
 * parameter, never read as the default or clamped, so a caller learns its page is not the one it asked for;
 * given twice too. The ranges live in schema/ (`queryRanges`), where `svc` reads them for its flags.
 */
import type { IntRange } from '../../schema/index.js';
import { ApiError } from '../api-error.js';
import type { RequestHead } from '../types.js';
import { singleParam } from './single.param.js';

export function intParam(req: RequestHead, name: string, range: IntRange): number {
  const { fallback, min, max } = range;
  const raw = singleParam(req, name, 'bad_params');
  if (raw === null || raw === '') return fallback;
  // Digits only: `Number` would also read `0x10` as 16, `1e2` as 100, ` 5` as 5 and `-0` as 0.
  const n = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max)
    throw new ApiError('bad_params', {
      detail: `\`${name}\` must be an integer from ${min} to ${max}.`,
      hint: `Send \`${name}\` within range, or leave it out (default ${fallback}).`,
    });
  return n;
}
