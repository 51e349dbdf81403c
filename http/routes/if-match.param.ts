/**
 * `If-Match` naming a version this service gave as `ETag` (`"3"`, or a bare `3`), as on the work
 * tracker's items and files and the knowledge base's pages, read by the one precondition parser
 * (http/entity-tags.ts). A version is a count of changes, so more than 15 digits names none (and would
 * lose precision as a number): such a header, however long, is refused with the rest, never carried into a
 * write.
 */
import { ApiError } from '../api-error.js';
import { parseTagList, weakMatch } from '../entity-tags.js';
import type { ApiRequest, Precondition } from '../types.js';

/** `RouteDef.preconditions` of the writes to a versioned item, file or page: both are read. */
export const versioned: readonly Precondition[] = ['if-match', 'if-none-match'];

// As this service writes a version: no leading zero, so `"02"` names no version (If-Match compares strongly).
const VERSION = /^(0|[1-9]\d{0,14})$/;

/**
 * The version a present `If-Match` names for a write against `current` (the version this node holds, null
 * when unknown): of a list (RFC 9110 13.1.1) the one equal to `current` when listed, else the first, which
 * the writer refuses as stale. Weak tags never match and are passed over. Null when no strong version is
 * listed (`*`, only weak tags, a tag no version could be): the caller refuses it.
 */
export function versionTag(raw: string, current: number | null = null): number | null {
  // A header far longer than any list of tags is not worth matching against.
  if (raw.length > 256) return null;
  const list = parseTagList(raw);
  if (list === null || list.any) return null;
  const versions: number[] = [];
  for (const tag of list.tags) {
    if (!VERSION.test(tag.value)) return null;
    if (!tag.weak) versions.push(Number(tag.value));
  }
  if (versions.length === 0) return null;
  return current !== null && versions.includes(current) ? current : versions[0]!;
}

/**
 * `If-None-Match` on a write to a target at version `current` (null: none), which the writer will take only
 * at version `pinned` when an `If-Match` named one (RFC 9110 13.1.2): `*` when the target exists, or a tag
 * naming (weakly) the version the write would apply to, is refused 412 `entity_exists`. With no `If-Match`
 * and a target that exists, the answer pins the write to `current`, the version just judged, so the writer
 * (deciding in log order) never applies it to a version the header named; a change in between answers as a
 * stale `If-Match` does. `pin: false` leaves the write unpinned, for a route whose writer already refuses
 * any write to an existing target without `If-Match` (project files). A header that is no list of tags is
 * 400 `bad_params`; a tag that is no version names none.
 */
export function noneMatchVersion(
  raw: string | undefined,
  current: number | null,
  pinned: number | undefined,
  pin = true,
): number | undefined {
  if (raw === undefined || raw === '') return pinned;
  const list = raw.length > 256 ? null : parseTagList(raw);
  if (list === null)
    throw new ApiError('bad_params', {
      detail: 'If-None-Match must be * or a list of versions this route gave as ETag ("3")',
    });
  const at = pinned ?? current;
  if (
    list.any
      ? current !== null
      : at !== null && list.tags.some((t) => VERSION.test(t.value) && Number(t.value) === at)
  )
    throw new ApiError('entity_exists', {
      detail: list.any
        ? `the target exists (version ${current}): If-None-Match * writes only where there is none`
        : `the target would be written at version ${at}, which If-None-Match names`,
      hint: 'Read it again (its version is its ETag), or drop If-None-Match to write over it.',
    });
  return pinned ?? (pin && current !== null ? current : undefined);
}

/**
 * `If-None-Match` on a read of a target at version `current` (RFC 9110 13.1.2): true when it is `*` or names
 * `current` (compared weakly, so `W/"3"` too), so the read answers 304 with the `ETag` and no body, as the
 * `/config` reads do. A header that is no list of tags names nothing held: the read answers in full.
 */
export function holdsVersion(raw: string | undefined, current: number): boolean {
  if (raw === undefined) return false;
  const list = parseTagList(raw);
  return list !== null && weakMatch(list, String(current));
}

/**
 * The preconditions of a create (`POST /work`, `POST /pages`), judged against what it would make, which has
 * no version yet (RFC 9110 13.1): `If-Match`, a version or `*`, can match nothing, so it is 412 rather than
 * a create that ignored it; `If-None-Match` holds (one that is no list of tags is 400, as on every write).
 */
export function createPreconditions(req: ApiRequest, made: string): void {
  const ifMatch = req.headers['if-match'];
  if (ifMatch !== undefined && ifMatch !== '')
    throw new ApiError('precondition_failed', {
      detail: `If-Match names a version, but this create makes a new ${made}, which has none yet`,
    });
  noneMatchVersion(req.headers['if-none-match'], null, undefined);
}
