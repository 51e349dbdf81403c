/** Reading the Tier A file from disk; `schema/` validates the text and does no I/O of its own. */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  formatProblems,
  parseTierA,
  type LoadOptions,
  type TierA,
  type TierAResult,
} from '../schema/index.js';
import { UsageError } from './cli-usage.js';

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

/**
 * The Tier A file a local command (serve, replay, restore, projections) runs with: `--config`, else
 * $SVC_CONFIG. A refused file is written to `err` with every problem, and answers null (exit 1).
 */
export function loadConfigFile(
  file: string | undefined,
  env: NodeJS.ProcessEnv,
  err: { write(text: string): unknown },
): TierA | null {
  const path = file ?? env['SVC_CONFIG'];
  if (!path) throw new UsageError('no configuration: pass --config FILE or set SVC_CONFIG');
  const result = loadTierA(path, { env, cwd: process.cwd() });
  if (result.ok) return result.config;
  err.write(`svc: configuration ${path} refused:\n${formatProblems(result.problems)}\n`);
  return null;
}
