/**
 * A refusal from a query function (a bad parameter, an absent event). Projections cannot import the
 * gateway, so they throw this; the gateway renders it as the catalogued `{error, detail, hint}` answer and
 * the socket's query channel as an `error` frame.
 */
import type { ErrorCode } from '../../schema/index.js';

/** A bad parameter is `bad_params` on every question (spec error table; `invalid_query` is `dry_run`'s). */
export type QueryErrorCodeName = Extract<ErrorCode, 'not_found' | 'bad_params' | 'unknown_query'>;

export class QueryError extends Error {
  override name = 'QueryError';
  constructor(
    readonly code: QueryErrorCodeName,
    readonly detail: string,
    readonly hint?: string,
  ) {
    super(`${code}: ${detail}`);
  }
}
