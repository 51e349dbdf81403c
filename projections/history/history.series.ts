/**
 * `event_series`: how many events each hour or day held, counted from the events index alone (no record is
 * read back), oldest bucket first, empty buckets included. Buckets are aligned on UTC hours and days; the
 * window is `since_hours` back from now, never past the history floor (now − event_history_seconds).
 */
import { EventCategory, type Coverage } from '../../schema/index.js';
import { categoryCodes, type IndexFilter } from '../events/events.index.js';
import type { EventsSource } from '../events/events.queries.js';
import { boolParam, categoryParam, onlyKnown, one, SEAT_PARAMS, wholeParam } from './history.params.js';
import { seatParam, type SeatHandleOf } from '../query/params.js';
import { QueryError } from '../query/query-error.js';

export const SeriesBucket = { Hour: 'hour', Day: 'day' } as const;
export type SeriesBucket = (typeof SeriesBucket)[keyof typeof SeriesBucket];

const bucketMs: Record<SeriesBucket, number> = { hour: 3_600_000, day: 86_400_000 };
/** Default window: a day of hours, or the whole history in days. */
const defaultHours: Record<SeriesBucket, number> = { hour: 24, day: 30 * 24 };

export interface SeriesQuery extends IndexFilter {
  readonly bucket: SeriesBucket;
  /** Asked window; clamped to the history when answered. */
  readonly sinceHours: number;
}

export type CategoryCounts = Record<EventCategory, number>;

export interface SeriesPoint {
  /** The bucket's first instant (RFC 3339 UTC). */
  readonly start: string;
  readonly total: number;
  readonly by_category: CategoryCounts;
}

export interface SeriesAnswer {
  readonly bucket: SeriesBucket;
  /** The window counted: `from` inclusive (clamped to the history floor), `to` (now) inclusive. */
  readonly from: string;
  readonly to: string;
  readonly total: number;
  readonly series: SeriesPoint[];
  readonly coverage: Coverage;
}

const SERIES_PARAMS = ['bucket', 'since_hours', 'category', 'feed_only', ...SEAT_PARAMS];

/**
 * Reads `event_series` parameters; `since_hours` above the history is clamped to it. The seat filter is
 * `/events`' (a seat's agent id read as its handle through `seatHandle`).
 */
export function parseSeriesQuery(
  params: URLSearchParams,
  historySeconds: number,
  seatHandle?: SeatHandleOf,
): SeriesQuery {
  onlyKnown(params, 'event_series', SERIES_PARAMS);
  const b = one(params, 'bucket') ?? SeriesBucket.Hour;
  if (b !== SeriesBucket.Hour && b !== SeriesBucket.Day)
    throw new QueryError(
      'bad_params',
      'bucket must be hour or day',
      'Pass bucket=hour or bucket=day, or leave it out (hour).',
    );
  const maxHours = Math.max(1, Math.ceil(historySeconds / 3600));
  const sinceHours = wholeParam(params, 'since_hours', Math.min(defaultHours[b], maxHours), maxHours);
  const category = categoryParam(params);
  const seat = seatParam(params, seatHandle);
  return {
    bucket: b,
    sinceHours,
    ...(category !== undefined ? { category } : {}),
    ...(seat !== undefined ? { agentId: seat } : {}),
    feedOnly: boolParam(params, 'feed_only'),
  };
}

const zeroCounts = (): CategoryCounts =>
  Object.fromEntries(Object.values(EventCategory).map((c) => [c, 0])) as CategoryCounts;

/** `event_series`: counts per bucket over the window, oldest first. */
export function eventSeries(src: EventsSource, query: SeriesQuery): SeriesAnswer {
  const index = src.state().index;
  const now = src.now?.() ?? Date.now();
  const floor = now - src.historySeconds * 1000;
  const from = Math.max(floor, now - query.sinceHours * 3_600_000);
  const step = bucketMs[query.bucket];
  const first = Math.floor(from / step) * step;
  const buckets = Math.floor(now / step) - first / step + 1;
  const totals = new Array<number>(buckets).fill(0);
  // Counts by category code, bucket-major: no object a counted entry.
  const byCode = new Array<number>(buckets * categoryCodes.length).fill(0);
  const code = index.agentCode(query.agentId);
  if (code !== -1) {
    for (let i = index.lowerBound(from, 0, ''); i < index.size; i += 1) {
      const ms = index.msAt(i);
      // An event stamped ahead of this node's clock is not in the window yet.
      if (ms > now) break;
      if (!index.matches(i, query, code)) continue;
      const k = Math.floor(ms / step) - first / step;
      totals[k] = (totals[k] as number) + 1;
      const at = k * categoryCodes.length + index.categoryCodeAt(i);
      byCode[at] = (byCode[at] as number) + 1;
    }
  }
  const series: SeriesPoint[] = totals.map((total, k) => {
    const by_category = zeroCounts();
    categoryCodes.forEach((c, j) => (by_category[c] = byCode[k * categoryCodes.length + j] as number));
    return { start: new Date(first + k * step).toISOString(), total, by_category };
  });
  return {
    bucket: query.bucket,
    from: new Date(from).toISOString(),
    to: new Date(now).toISOString(),
    total: totals.reduce((a, b) => a + b, 0),
    series,
    coverage: { nodes: [{ id: src.node, answered: true }], complete: true },
  };
}
