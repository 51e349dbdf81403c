/**
 * The ranges of the integer query parameters the reads take, held once: the node reads a parameter by its
 * range (refusing, or clamping where the spec says so) and `svc` checks the flag that sends it against the
 * same range before asking (exit 2), so the two cannot drift apart. Plain values: a client command loads
 * this file without zod.
 */

/** An integer query parameter: its value when absent, and the smallest and largest it takes. */
export interface IntRange {
  readonly fallback: number;
  readonly min: number;
  readonly max: number;
}

export const queryRanges = {
  /** `GET /events` `limit`: above 400 reads as 400 (spec Limits "events per page"). */
  eventsLimit: { fallback: 100, min: 1, max: 400 },
  /** `GET /config/revisions` `limit`, refused outside. */
  revisionsLimit: { fallback: 50, min: 1, max: 500 },
  /** `GET /config/revisions` `offset`, refused outside. */
  revisionsOffset: { fallback: 0, min: 0, max: Number.MAX_SAFE_INTEGER },
  /** `GET /agents/activity` `days`: clamped to the range. */
  activityDays: { fallback: 7, min: 1, max: 30 },
  /** `GET /work` `limit`. */
  workListLimit: { fallback: 50, min: 1, max: 200 },
  /** `GET /work/comments` and `/work/turns` `limit` (spec Limits "comments / turns pages"). */
  workPageLimit: { fallback: 20, min: 1, max: 50 },
  /** `GET /work/inbox` `limit` (spec Limits "inbox page"). */
  workInboxLimit: { fallback: 50, min: 1, max: 50 },
  /** `GET /work/projects` `limit` (spec Limits "work projects": default and max 200). */
  workProjectsLimit: { fallback: 200, min: 1, max: 200 },
  /** `GET /work/activity` `limit` (spec Limits "activity page"). */
  workActivityLimit: { fallback: 200, min: 1, max: 200 },
  /** `GET /work/files` `limit` (spec Limits "work files"). */
  workFilesLimit: { fallback: 200, min: 1, max: 1000 },
  /** `GET /pages` `limit`, listing and search alike. */
  pagesLimit: { fallback: 50, min: 1, max: 200 },
} as const satisfies Record<string, IntRange>;

/** The longest search text (`q`) of `GET /pages` and the `/work` reads, in characters (code points). */
export const SEARCH_TEXT_MAX = 500;
