// The shape of the error catalogue's entries (errors.ts, errors.work.ts).

/** The statuses the spec's table gives a code. */
export type ErrorStatus = 400 | 401 | 403 | 404 | 405 | 409 | 412 | 413 | 415 | 503;

/** One use of a code: the status it answers with and the default words. */
export interface ErrorUse {
  readonly status: ErrorStatus;
  /** When the spec says the code is given (mirrors the spec's "When" column). */
  readonly when: string;
  readonly detail: string;
  readonly hint: string;
}

export interface ErrorEntry extends ErrorUse {
  /** True when the same request, sent again unchanged, may succeed (after `retryAfterSeconds` if set). */
  readonly retryable: boolean;
  /** Sent as `Retry-After` with every answer carrying the code. */
  readonly retryAfterSeconds?: number;
  readonly variants?: Readonly<Record<string, ErrorUse>>;
}
