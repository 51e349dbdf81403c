/**
 * A KV entry holding one JSON document, read through its schema and written back by compare-and-set. An
 * entry that does not parse reads as `empty` with its revision, so the next write replaces it rather than
 * failing on it forever.
 */
import type { z } from 'zod';
import type { Kv } from '../bus/index.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export async function readKvJson<T>(
  kv: Kv,
  key: string,
  schema: z.ZodType<T>,
  empty: T,
): Promise<{ value: T; revision: number | null }> {
  const entry = await kv.get(key);
  if (entry === null) return { value: empty, revision: null };
  try {
    const parsed = schema.safeParse(JSON.parse(decoder.decode(entry.value)));
    return { value: parsed.success ? parsed.data : empty, revision: entry.revision };
  } catch {
    return { value: empty, revision: entry.revision };
  }
}

/** Writes `value` where the entry is still at `revision` (null: absent); else KvConflictError. */
export async function writeKvJson(
  kv: Kv,
  key: string,
  value: unknown,
  revision: number | null,
): Promise<void> {
  const bytes = encoder.encode(JSON.stringify(value));
  if (revision === null) await kv.create(key, bytes);
  else await kv.update(key, bytes, revision);
}
