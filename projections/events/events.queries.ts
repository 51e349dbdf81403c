/**
 * The answers of the event history questions (`events`, `event`, `trace`) and the snapshot's feed rows.
 * Pages are cut from the index by an exclusive keyset cursor on (timestamp, id) descending; rows come from
 * the in-memory window when held there and from the stream by sequence otherwise. Nothing older than the
 * history floor (now − event_history_seconds) is ever answered: a cursor at or past the floor pages empty.
 */
import {
  EventCategory,
  formatInstant,
  isStoredType,
  parseCursorInstant,
  queryRanges,
  toFullEvent,
  type Coverage,
  type EventAnswer,
  type EventRecord,
  type EventRow,
  type EventsPage,
  type Instant,
  type TraceAnswer,
} from '../../schema/index.js';
import { Subjects } from '../../bus/index.js';
import type { IndexFilter } from './events.index.js';
import { windowRows, type EventsState } from './events.projection.js';
import { QueryError } from '../query/query-error.js';
import { seatParam, type SeatHandleOf } from '../query/params.js';

const { fallback: EVENTS_PAGE_DEFAULT, max: EVENTS_PAGE_MAX } = queryRanges.eventsLimit;
export const TRACE_MAX = 500;

/** What the answers read: the projection's state, the stream by sequence, the clock. */
export interface EventsSource {
  state(): EventsState;
  /** The stored record at `seq` (with payload), or null when the stream no longer holds it. */
  fetch(seq: number): Promise<EventRecord | null>;
  readonly node: string;
  readonly historySeconds: number;
  now?(): number;
  /**
   * A seat's handle for its agent id, from the company roster the node holds (not the projection's fold):
   * the seat filter takes the UUID an `/agents` row names as that seat's handle, the one event rows carry.
   */
  readonly seatHandle?: SeatHandleOf;
}

const categories = new Set<string>(Object.values(EventCategory));

/**
 * A served record names its `topic` (spec "Event record"): the one its publisher gave, else the bus topic it
 * travels on, `svc.events.<type>` ("Bus topics"). Added as it is served, so the window holds no copy.
 */
export function withTopic<T extends EventRow>(row: T): T {
  if (row.topic !== undefined) return row;
  try {
    return { ...row, topic: Subjects.event(row.type) };
  } catch {
    return row; // A type no subject can carry (never stored by this build): nothing to name.
  }
}

function coverage(node: string): Coverage {
  return { nodes: [{ id: node, answered: true }], complete: true };
}

const floorOf = (src: EventsSource): number => (src.now?.() ?? Date.now()) - src.historySeconds * 1000;

/**
 * One value of a parameter given at most once; absent or blank reads as undefined, a value is trimmed (as the
 * history questions read theirs: `event_series` takes these filters, and a form left blank lists everything).
 */
function one(params: URLSearchParams, name: string): string | undefined {
  const all = params.getAll(name);
  if (all.length > 1)
    throw new QueryError('bad_params', `${name} is given more than once`, `Give ${name} once.`);
  const v = all[0]?.trim();
  return v === undefined || v === '' ? undefined : v;
}

export interface ListQuery extends IndexFilter {
  readonly limit: number;
  readonly cursor: { readonly instant: Instant; readonly id: string } | null;
}

/**
 * Reads `/events` parameters; refuses what is outside their sets with `bad_params`. `seatHandle` reads a
 * seat's agent id in the seat filter as its handle.
 */
export function parseListQuery(params: URLSearchParams, seatHandle?: SeatHandleOf): ListQuery {
  const limitText = one(params, 'limit');
  let limit: number = EVENTS_PAGE_DEFAULT;
  // An empty `limit=` (a form left blank) reads as absent, as on every other listing.
  if (limitText !== undefined) {
    if (!/^\d+$/.test(limitText) || Number(limitText) < 1)
      throw new QueryError(
        'bad_params',
        `limit must be a whole number from 1 to ${EVENTS_PAGE_MAX}`,
        `Leave limit out for ${EVENTS_PAGE_DEFAULT} rows; a larger number is read as ${EVENTS_PAGE_MAX}.`,
      );
    limit = Math.min(EVENTS_PAGE_MAX, Number(limitText));
  }
  // A blank half reads as absent, as `turns` and `phases` read theirs: an empty id is no cursor half.
  const beforeTime = one(params, 'before_time');
  const beforeId = one(params, 'before_id');
  let cursor: ListQuery['cursor'] = null;
  if ((beforeTime === undefined) !== (beforeId === undefined))
    throw new QueryError(
      'bad_params',
      'the cursor has two halves: give before_time and before_id together (both from `next`)',
      'Pass both halves of `next` from the previous page, or neither for the newest page.',
    );
  if (beforeTime !== undefined && beforeId !== undefined) {
    const instant = parseCursorInstant(beforeTime);
    if (instant === null)
      throw new QueryError(
        'bad_params',
        'before_time is not an RFC 3339 timestamp',
        'Copy before_time and before_id from the previous page’s `next`.',
      );
    cursor = { instant, id: beforeId };
  }
  const category = one(params, 'category');
  if (category !== undefined && !categories.has(category))
    throw new QueryError(
      'bad_params',
      `category must be one of ${[...categories].join(', ')}`,
      'Leave category out to list every category.',
    );
  const feedOnly = one(params, 'feed_only');
  if (feedOnly !== undefined && feedOnly !== 'true' && feedOnly !== 'false')
    throw new QueryError(
      'bad_params',
      'feed_only must be true or false',
      'Use feed_only=true for the feed’s rows only, or leave it out.',
    );
  const seat = seatParam(params, seatHandle);
  // The spec names no type filter; `type` is this node's (ops/dashboard.md). Stored types are a closed set.
  const type = one(params, 'type');
  if (type !== undefined && !isStoredType(type))
    throw new QueryError(
      'bad_params',
      `type ${JSON.stringify(type.slice(0, 80))} is not a stored event type`,
      'Give an event type exactly as a row shows it (e.g. TaskCreated), or leave type out.',
    );
  return {
    limit,
    cursor,
    ...(category !== undefined ? { category: category as EventCategory } : {}),
    ...(seat !== undefined ? { agentId: seat } : {}),
    ...(type !== undefined ? { type } : {}),
    feedOnly: feedOnly === 'true',
  };
}

/** `/events`: one page, newest first. */
export async function listEvents(src: EventsSource, query: ListQuery): Promise<EventsPage> {
  const state = src.state();
  const index = state.index;
  const floor = floorOf(src);
  const empty: EventsPage = { rows: [], exhausted: true, next: null, coverage: coverage(src.node) };
  if (query.cursor !== null && query.cursor.instant.ms < floor) return empty;
  const end =
    query.cursor === null
      ? index.size
      : index.lowerBound(query.cursor.instant.ms, query.cursor.instant.ns, query.cursor.id);
  const positions = index.scanBack(end, query, query.limit + 1, floor);
  const exhausted = positions.length <= query.limit;
  const taken = positions.slice(0, query.limit);
  const held = new Map<number, EventRow>();
  for (const w of windowRows(state)) held.set(w.seq, w.row);
  const rows = await Promise.all(
    taken.map(async (i): Promise<EventRow | null> => {
      const seq = index.seqAt(i);
      const row = held.get(seq);
      if (row) return row;
      const record = await src.fetch(seq);
      if (record === null) return null;
      const { payload: _payload, ...rest } = toFullEvent(record);
      return rest;
    }),
  );
  const seen = new Set<string>();
  const out: EventRow[] = [];
  for (const row of rows) {
    if (row === null || seen.has(row.id)) continue;
    seen.add(row.id);
    out.push(withTopic(row));
  }
  const last = taken[taken.length - 1];
  const next =
    exhausted || last === undefined
      ? null
      : { before_time: formatInstant(index.instantAt(last)), before_id: index.idAt(last) };
  return { rows: out, exhausted, next, coverage: coverage(src.node) };
}

/** `/events/{event_id}`: the event with its payload; `not_found` outside history. */
export async function getEvent(src: EventsSource, id: string): Promise<EventAnswer> {
  if (id === '')
    throw new QueryError('bad_params', 'event needs event_id', 'Take event_id from a row of `events`.');
  const index = src.state().index;
  const floor = floorOf(src);
  // The index finds an id by its hash (no scan): the newest entry whose record really has this id.
  for (const hit of index.findId(id)) {
    if (hit.ms < floor) break;
    const record = await src.fetch(hit.seq);
    if (record !== null && record.id === id)
      return { ...withTopic(toFullEvent(record)), coverage: coverage(src.node) };
  }
  throw new QueryError(
    'not_found',
    `no event ${id} in the event history`,
    'Events older than the history window are gone.',
  );
}

/**
 * `/events/trace/{trace_id}`: oldest first, at most 500, with the total in history. The index finds a trace
 * by a 64-bit hash, so every hit is read back and only records of this trace are listed or counted (a
 * colliding trace's records would otherwise fill the 500 and inflate `total`); hits are read 500 at a time.
 */
export async function traceEvents(src: EventsSource, traceId: string): Promise<TraceAnswer> {
  // An empty id would list the events stamped with no trace as if they were one.
  if (traceId === '')
    throw new QueryError('bad_params', 'trace needs trace_id', 'Take trace_id from a row of `events`.');
  const index = src.state().index;
  const floor = floorOf(src);
  const positions = index.trace(traceId).filter((i) => index.instantAt(i).ms >= floor);
  const seen = new Set<string>();
  const events: EventRecord[] = [];
  for (let from = 0; from < positions.length; from += TRACE_MAX) {
    const chunk = positions.slice(from, from + TRACE_MAX);
    const records = await Promise.all(chunk.map((i) => src.fetch(index.seqAt(i))));
    for (const record of records) {
      if (record === null || record.trace_id !== traceId || seen.has(record.id)) continue;
      seen.add(record.id);
      if (events.length < TRACE_MAX) events.push(withTopic(toFullEvent(record)));
    }
  }
  return { trace_id: traceId, events, total: seen.size, coverage: coverage(src.node) };
}

/** The snapshot's `events`: the in-memory feed rows inside history, newest first. */
export function feedRows(src: EventsSource): EventRow[] {
  const floor = floorOf(src);
  const out: EventRow[] = [];
  // A record stored twice under one id at two instants is one row, at its newest (as pages list it).
  const seen = new Set<string>();
  const w = windowRows(src.state());
  for (let i = w.length - 1; i >= 0; i -= 1) {
    const entry = w[i];
    if (!entry || entry.instant.ms < floor || seen.has(entry.row.id)) continue;
    seen.add(entry.row.id);
    out.push(withTopic(entry.row));
  }
  return out;
}
