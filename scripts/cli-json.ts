/**
 * One JSON request of a `svc <noun> <verb>` client (work, pages): the answer printed as one line of JSON on
 * stdout (exit 0), or the refusal's code, detail and problems on stderr (exit 1).
 */
import type { NodeContext } from './cli-args.js';
import { requestNode } from './cli-http.js';
import { describeRefusal } from './config-cli.js';
import { UsageError } from './cli-usage.js';

type Out = { write(text: string): unknown };

export async function callJson(
  command: string,
  ctx: NodeContext<Out>,
  method: string,
  path: string,
  body?: unknown,
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
    ctx.err.write(describeRefusal(response.status, text));
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

/** `--limit N` as sent: a positive integer of at most four digits, else a usage error. */
export function limitOf(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  if (!/^[1-9]\d{0,3}$/.test(raw)) throw new UsageError(`--limit must be a positive integer, not ${raw}`);
  return raw;
}
