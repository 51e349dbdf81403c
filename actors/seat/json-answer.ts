/**
 * A model's JSON answer, read leniently: the text from its first `{` to its last `}` (models wrap JSON in
 * prose or fences), parsed through `schema`. Pure.
 */
import type { z } from 'zod';

/** The answer's object, or `undefined` when there is none or it does not fit `schema`. */
export function jsonAnswer<T>(text: string, schema: z.ZodType<T>): T | undefined {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start === -1 || end < start) return undefined;
  try {
    const parsed = schema.safeParse(JSON.parse(text.slice(start, end + 1)));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
