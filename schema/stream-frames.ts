/**
 * Frames of `WS /ws/stream` (spec "WebSocket and snapshot"): every frame is `{kind, data, ts}` with `ts`
 * ISO 8601. Server kinds are a closed set; the client sends `ping` and `query` (the socket carries no write).
 * The query frame and its answers are this service's choice (the spec leaves them open): see ops/events.md.
 */
import { z } from 'zod';

export const ServerFrameKind = {
  Snapshot: 'snapshot',
  Event: 'event',
  Health: 'health',
  Pong: 'pong',
  Result: 'result',
  Error: 'error',
  Seats: 'seats',
  Org: 'org',
  Tools: 'tools',
  Sandboxes: 'sandboxes',
  Tokens: 'tokens',
  Budget: 'budget',
  Schedules: 'schedules',
  Agents: 'agents',
} as const;
export type ServerFrameKind = (typeof ServerFrameKind)[keyof typeof ServerFrameKind];

/** Why a query on the socket was not answered: a small closed set. */
export const QueryErrorCode = {
  NotFound: 'not_found',
  Unauthorized: 'unauthorized',
  UnknownQuery: 'unknown_query',
  InvalidQuery: 'invalid_query',
  QueryFailed: 'query_failed',
  BadFrame: 'bad_frame',
} as const;
export type QueryErrorCode = (typeof QueryErrorCode)[keyof typeof QueryErrorCode];

const Params = z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]));

export const PingFrame = z.object({ kind: z.literal('ping'), data: z.unknown().optional() });

/** `{kind: "query", id, what, params, token?}`: answered by `result` or `error` carrying the same id. */
export const QueryFrame = z.object({
  kind: z.literal('query'),
  id: z.union([z.string().max(128), z.number()]),
  what: z.string().min(1).max(128),
  params: Params.optional(),
  /** An operator token for guarded questions, when the socket itself was opened without one. */
  token: z.string().max(4096).optional(),
});
export type QueryFrame = z.infer<typeof QueryFrame>;

export const ClientFrame = z.discriminatedUnion('kind', [PingFrame, QueryFrame]);
export type ClientFrame = z.infer<typeof ClientFrame>;

export interface QueryFailure {
  readonly id: string | number | null;
  readonly what: string | null;
  readonly error: QueryErrorCode;
  /** The refusal's own code and status, as the route answers it, when it is a catalogued refusal. */
  readonly code?: string;
  readonly status?: number;
  readonly detail?: string;
  /** What to do about it, as the route's answer says it. */
  readonly hint?: string;
}
