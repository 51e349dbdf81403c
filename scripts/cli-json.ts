/**
 * One JSON request of a `svc <noun> <verb>` client (work, pages): the answer printed as one line of JSON on
 * stdout (exit 0), or the refusal's code, detail and problems on stderr (exit 1).
 */
import type { NodeContext } from './cli-args.js';
import { requestNode } from './cli-http.js';
import { describeRefusal } from './config-cli.js';
import { UsageError, type Out } from './cli-usage.js';

/**
 * `asFlags`: query parameters the command takes as flags of the same name; a refusal that tells how to
 * send one (`?handle=`) is printed with the flag (`--handle`), which is what the user types.
 */
export async function callJson(
  command: string,
  ctx: NodeContext<Out>,
  method: string,
  path: string,
  body?: unknown,
  asFlags: readonly string[] = [],
): Promise<number> {
  const response = await requestNode(
    command,
    ctx,
    method,
    path,
    body === undefined ? undefined : JSON.stringify(body),
    body === undefined ? {} : { 'content-type': 'application/json' },
  );
  if (response === null) return 1;
  const text = await response.text();
  if (!response.ok) {
    let said = describeRefusal(response.status, text, command);
    for (const name of asFlags) said = said.replaceAll(`?${name}=`, `--${name}`);
    ctx.err.write(said);
    return 1;
  }
  ctx.out.write(text.endsWith('\n') ? text : `${text}\n`);
  return 0;
}

/** `?a=1&b=2` of the given values (absent ones left out), or '' when none. */
export function queryOf(values: Record<string, string | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(values)) if (v !== undefined) q.set(k, v);
  const text = q.toString();
  return text === '' ? '' : `?${text}`;
}

/**
 * `--limit N` as sent: a positive integer of at most `max` (the route's own maximum, checked here so a
 * bad flag exits 2 as the help says, instead of a refusal from the node), else a usage error.
 */
export function limitOf(raw: string | undefined, max: number): string | undefined {
  if (raw === undefined) return undefined;
  if (!/^[1-9]\d{0,3}$/.test(raw) || Number(raw) > max)
    throw new UsageError(`--limit must be an integer from 1 to ${max}, not ${raw}`);
  return raw;
}
