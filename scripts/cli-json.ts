/**
 * One JSON request of a `svc <noun> <verb>` client (work, pages, agents): the answer printed as one line of JSON on
 * stdout (exit 0), or the refusal's code, detail and problems on stderr (exit 1).
 */
import type { NodeContext } from './cli-args.js';
import { requestNode } from './cli-http.js';
import { describeRefusal } from './cli-refusal.js';
import { nodeJson } from './cli-shape.js';
import type { Out } from './cli-usage.js';

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
  const rewrite = (said: string): string =>
    asFlags.reduce((text, name) => text.replaceAll(`?${name}=`, `--${name}`), said);
  const text = await answerText(command, ctx, method, path, body, rewrite);
  if (text === null) return 1;
  ctx.out.write(text.endsWith('\n') ? text : `${text}\n`);
  return 0;
}

/**
 * The text of the node's 2xx answer to one JSON request (`AnswerShapeError` when it is not JSON), or null
 * once the refusal (code, detail, problems, hint; passed through `rewrite` so it can speak of the command's
 * own words) or the unreachable node was written to stderr.
 */
export async function answerText(
  command: string,
  ctx: NodeContext<Out>,
  method: string,
  path: string,
  body?: unknown,
  rewrite: (said: string) => string = (said) => said,
): Promise<string | null> {
  const response = await requestNode(
    command,
    ctx,
    method,
    path,
    body === undefined ? undefined : JSON.stringify(body),
    body === undefined ? {} : { 'content-type': 'application/json' },
  );
  if (response === null) return null;
  const text = await response.text();
  if (!response.ok) {
    ctx.err.write(rewrite(describeRefusal(response.status, text, command)));
    return null;
  }
  nodeJson(response.status, text);
  return text;
}

/**
 * An id as one path segment. `.` and `..` are written `%2E` and `%2E%2E`: as written they are a path's
 * dot segments, which a client or proxy resolves (`get ..` asked for `/`); the node decodes them to the id.
 */
export const pathSegment = (id: string): string =>
  id === '.' || id === '..' ? id.replaceAll('.', '%2E') : encodeURIComponent(id);

/** `?a=1&b=2` of the given values (absent ones left out), or '' when none. */
export function queryOf(values: Record<string, string | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(values)) if (v !== undefined) q.set(k, v);
  const text = q.toString();
  return text === '' ? '' : `?${text}`;
}
