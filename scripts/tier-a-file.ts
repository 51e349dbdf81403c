/** Reading the Tier A file from disk; `schema/` validates the text and does no I/O of its own. */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseTierA, type LoadOptions, type TierAResult } from '../schema/index.js';

/** Reads and validates a Tier A file; never throws for bad input. */
export function loadTierA(file: string, opts: LoadOptions): TierAResult {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const reason = error instanceof Error && 'code' in error ? String(error.code) : 'unreadable';
    return { ok: false, problems: [{ path: '', message: `cannot read ${file} (${reason})` }] };
  }
  const result = parseTierA(text, opts);
  return result.ok ? { ok: true, config: { ...result.config, file: resolve(opts.cwd, file) } } : result;
}
