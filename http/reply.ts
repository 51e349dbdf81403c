// A leaf of its own, so the error model and the route types can both name a reply without importing each other.
/** A handler's answer. A Buffer or string body is sent as is; anything else is JSON-encoded. */
export interface ApiReply {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: unknown;
}
