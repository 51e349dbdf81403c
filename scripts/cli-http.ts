/** The request every `svc <verb>` client makes to a running node: bearer token from `SVC_TOKEN`, one clear line when unreachable. */
import { packageVersion } from './version.js';

/** The CLI names itself, so the node records its configuration writes with `source: cli`. */
export const cliUserAgent = (): string => `svc-cli/${packageVersion()}`;

export interface NodeTarget {
  readonly url: string;
  readonly token: string | undefined;
  readonly err: { write(text: string): unknown };
}

/** The node's answer, or null after writing `svc <command>: cannot reach <url> (<cause>)` to `err`. */
export async function requestNode(
  command: string,
  target: NodeTarget,
  method: string,
  path: string,
  body?: string | Buffer,
  headers: Record<string, string> = {},
): Promise<Response | null> {
  try {
    const response = await fetch(`${target.url}${path}`, {
      method,
      headers: {
        'user-agent': cliUserAgent(),
        ...(target.token ? { authorization: `Bearer ${target.token}` } : {}),
        ...headers,
      },
      ...(body !== undefined ? { body } : {}),
    });
    if (response.status === 401) target.err.write(tokenHint(command, target.token !== undefined));
    return response;
  } catch (error) {
    const cause =
      error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
    target.err.write(`svc ${command}: cannot reach ${target.url} (${cause})\n`);
    return null;
  }
}

/** What a 401 means from a terminal: the token comes from `SVC_TOKEN`, not from a header the user writes. */
export function tokenHint(command: string, tokenSet: boolean): string {
  return tokenSet
    ? `svc ${command}: the node refused the token in SVC_TOKEN: set it to a token of the node's api.auth.tokens\n`
    : `svc ${command}: the node needs an operator token: set SVC_TOKEN to a token of the node's api.auth.tokens\n`;
}
