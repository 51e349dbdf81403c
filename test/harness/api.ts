/** Requests to a served node's JSON routes with the operator token, and their answers parsed. */
import { TOKEN } from './serve-node.js';

export type Json = Record<string, unknown>;

export interface Answer {
  readonly status: number;
  readonly body: Json;
}

/**
 * `method path` on the node at `url` with the operator token; `body`, when given, is sent as JSON (a PATCH
 * as a merge patch, its media type). `x-summary` names the request: it is the summary a write stores.
 */
export async function call(url: string, method: string, path: string, body?: unknown): Promise<Answer> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${TOKEN}`,
      'x-summary': `${method} ${path}`,
      ...(body === undefined
        ? {}
        : { 'content-type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

/** The node's `/health` envelope. */
export const health = async (url: string): Promise<Json> => (await call(url, 'GET', '/health')).body;
