/**
 * The grammars of a webhook path's own segment (a seat handle, a wiki event name) and how much of a value
 * an answer, a page or a log line quotes back. A segment outside its grammar names a path no receiver
 * serves: 404 `no_route` before the credential and the body, since a 503 or 401 would have the sender
 * retry a URL that can never be accepted.
 */
import type { Logger } from 'pino';
import { cutForQuote, Seat } from '../../schema/index.js';
import { ApiError } from '../api-error.js';
import type { RequestHead } from '../types.js';

/** A sender's value as an answer, a page or a log line quotes it: cut, as every route cuts what it echoes. */
export const quoted = cutForQuote;

/** The company document's own rule for a seat handle: a value it refuses is a handle no seat can have. */
const seatHandle = Seat.shape.handle;

export const isSeatHandle = (value: string): boolean => seatHandle.safeParse(value).success;

/** What a refused segment is called in the answer and the log. */
export interface Unserved {
  /** The route as documented, e.g. `POST /webhooks/wiki/{event}`. */
  readonly route: string;
  /** The log line's `event` and `surface`. */
  readonly event: string;
  readonly surface: string;
  /** The segment's name in the detail (`event name`) and the log field that quotes it (`name`). */
  readonly noun: string;
  readonly field: string;
  readonly hint: string;
}

/** Refuses `value`, a path segment outside its grammar: logged, then 404 `no_route`, quoted cut. */
export function unserved(log: Logger, what: Unserved, value: string): never {
  const shown = quoted(value);
  log.warn({ event: what.event, surface: what.surface, [what.field]: shown }, what.event);
  throw new ApiError('no_route', {
    detail: `No route serves ${what.route} for the ${what.noun} ${JSON.stringify(shown)} (${Array.from(value).length} characters).`,
    hint: what.hint,
  });
}

/**
 * The `{handle}` of a per-seat route (`/webhooks/codehost-a/{handle}`, `/webhooks/chat/{handle}`), checked
 * before anything else: a handle outside the seat grammar is 404 `no_route`; a well-formed handle of no
 * seat goes on to the route's own answer.
 */
export function seatHandleServed(route: string, surface: string) {
  const what: Unserved = {
    route,
    event: 'webhook_unknown_seat',
    surface,
    noun: 'seat handle',
    field: 'handle',
    hint: 'A seat handle is 1 to 64 lowercase letters, digits or `-`, starting with a letter or digit (GET /agents lists the seats).',
  };
  return (req: RequestHead, log: Logger): void => {
    const handle = req.params['handle'] ?? '';
    if (!isSeatHandle(handle)) unserved(log, what, handle);
  };
}
