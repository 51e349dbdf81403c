/** Query parameter readers shared by the read answers: clamp, never refuse a number out of range. */
import { QueryError } from './query-error.js';

const DECIMAL = /^[+-]?\d+(\.\d+)?$/;

/** An integer parameter: absent or not a number reads as `fallback`; others are clamped to [min, max]. */
export function clampInt(raw: string | null | undefined, fallback: number, min: number, max: number): number {
  if (raw === null || raw === undefined) return fallback;
  // Decimal only: `Number` would also read `0x10` as 16 and `1e1` as 10, which no one writing days means.
  const text = raw.trim();
  if (!DECIMAL.test(text)) return fallback;
  const n = Number(text);
  return Math.min(max, Math.max(min, Math.trunc(n)));
}

/** An optional text filter: blank reads as none. */
export function textParam(raw: string | null | undefined): string | null {
  const v = raw?.trim() ?? '';
  return v === '' ? null : v;
}

/**
 * One parameter under two names (`agent_id` or `seat`, `event_id` or `id`): each at most once, blank reads
 * as absent, each value read by `read`. Two that differ once read are refused rather than one silently
 * dropped, which would widen or change the read.
 */
function aliasedParam(
  params: URLSearchParams,
  names: readonly [string, string],
  noun: string,
  read: (raw: string) => string,
): string | undefined {
  const named: string[] = [];
  for (const name of names) {
    const all = params.getAll(name);
    if (all.length > 1)
      throw new QueryError('bad_params', `${name} is given more than once`, `Give ${name} once.`);
    const raw = all[0];
    if (raw !== undefined && raw.trim() !== '') named.push(read(raw));
  }
  const [first, other] = names;
  if (named.length === 2 && named[0] !== named[1])
    throw new QueryError(
      'bad_params',
      `${first} and ${other} name the same ${noun}: give one of them`,
      `Drop \`${other}\` or \`${first}\`; they are one ${noun} under two names.`,
    );
  return named[0];
}

/**
 * A seat's handle for its durable agent id (a lower-case UUID, as `/agents` rows carry it in `agent_id`),
 * read from the company roster the node holds; undefined when no seat has that id.
 */
export type SeatHandleOf = (agentId: string) => string | undefined;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The seat filter of the event reads, `agent_id` or its other name `seat`: blank reads as absent, and the
 * handle is compared lowercased (handles are `[a-z0-9-]`, so `seat=Ada` means `ada`, not an empty read).
 * Event rows name a seat by its handle; a seat's agent id (UUID, any case) is read as that seat's handle
 * through `handleOf`, and one naming no seat stays as given, matching nothing (as an unknown handle). Two
 * different seats are refused, however each is named.
 */
export function seatParam(params: URLSearchParams, handleOf?: SeatHandleOf): string | undefined {
  return aliasedParam(params, ['agent_id', 'seat'], 'filter', (raw) => {
    const value = raw.trim().toLowerCase();
    return (UUID.test(value) ? handleOf?.(value) : undefined) ?? value;
  });
}

/**
 * The `event` question's id, `event_id` or its other name `id` (the route puts its path's id in
 * `event_id`): blank reads as absent, an id is taken exactly; two different ids are refused as two seats are.
 */
export function eventIdParam(params: URLSearchParams): string {
  return aliasedParam(params, ['event_id', 'id'], 'parameter', (raw) => raw) ?? '';
}
