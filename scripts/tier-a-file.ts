/** Reading the Tier A file from disk; `schema/` validates the text and does no I/O of its own. */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import {
  formatProblems,
  parseTierA,
  substituteDeep,
  type LoadOptions,
  type TierA,
  type TierAResult,
} from '../schema/index.js';
import { UsageError } from './cli-usage.js';
import { readFailure } from './read-failure.js';

/** Reads and validates a Tier A file; never throws for bad input. */
export function loadTierA(file: string, opts: LoadOptions): TierAResult {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    return { ok: false, problems: [{ path: '', message: `cannot read ${file} ${readFailure(error)}` }] };
  }
  const result = parseTierA(text, opts);
  return result.ok ? { ok: true, config: { ...result.config, file: resolve(opts.cwd, file) } } : result;
}

/**
 * The Tier A file a local command (serve, replay, restore, projections) runs with: `--config`, else
 * $SVC_CONFIG; `offline` for those that run with the node stopped (LoadOptions.offline). A refused file is written to `err` with every problem, and answers null (exit 1).
 */
export function loadConfigFile(
  file: string | undefined,
  env: NodeJS.ProcessEnv,
  err: { write(text: string): unknown },
  opts: { offline?: boolean } = {},
): TierA | null {
  const path = file ?? env['SVC_CONFIG'];
  if (!path) throw new UsageError('no configuration: pass --config FILE or set SVC_CONFIG');
  const result = loadTierA(path, { env, cwd: process.cwd(), offline: opts.offline === true });
  if (result.ok) return result.config;
  err.write(`svc: configuration ${path} refused:\n${formatProblems(result.problems)}\n`);
  return null;
}

/**
 * Where the node's API listens, read leniently from a Tier A file: only `api.host` and `api.port` (their
 * `${VAR}` references resolved), defaults as the node has them. A client command (`svc config`, `svc
 * events`, ...) run by an operator must not need the node's own secrets in its shell (`${NODE_SIDE_TOKEN}`,
 * keyring material), which validating the whole file would.
 */
const ApiAddress = z.object({
  api: z
    .object({
      host: z.string().min(1).default('127.0.0.1'),
      port: z.number().int().min(0).max(65535).default(8080),
    })
    .default({ host: '127.0.0.1', port: 8080 }),
});

export function readApiAddress(
  file: string,
  env: NodeJS.ProcessEnv,
): { ok: true; host: string; port: number } | { ok: false; problem: string } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    return { ok: false, problem: `cannot read ${file} ${readFailure(error)}` };
  }
  let raw: unknown;
  try {
    raw = parseYaml(text) ?? {};
  } catch (error) {
    const first = (error instanceof Error ? error.message : String(error)).split('\n')[0];
    return { ok: false, problem: `not valid YAML: ${first}` };
  }
  const api = typeof raw === 'object' && raw !== null ? (raw as { api?: unknown }).api : undefined;
  const picked =
    typeof api === 'object' && api !== null
      ? { host: (api as { host?: unknown }).host, port: (api as { port?: unknown }).port }
      : api;
  const parsed = ApiAddress.safeParse({ api: substituteDeep(picked, (name) => env[name]) });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    // The node's own wording for the two keys read here, not the validation library's.
    const key = issue.path[1] === 'host' ? 'api.host' : issue.path[1] === 'port' ? 'api.port' : 'api';
    const want = {
      'api.host': 'a host name or address',
      'api.port': 'a whole number from 0 to 65535',
      api: 'a map',
    };
    return { ok: false, problem: `${key}: expected ${want[key]}` };
  }
  return { ok: true, ...parsed.data.api };
}
