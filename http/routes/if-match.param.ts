/**
 * `If-Match` naming a version this service gave as `ETag` (`"3"`, or a bare `3`), as on the work
 * tracker's items and files and the knowledge base's pages. A version is a count of changes, so more than
 * 15 digits names none (and would lose precision as a number): such a header, however long, is refused
 * with the rest, never carried into a write.
 */
const STRONG_VERSION = /^\s*"?(\d{1,15})"?\s*$/;

/** The version a present `If-Match` names; null when it is not a strong version tag. */
export function versionTag(raw: string): number | null {
  // A header far longer than any tag is not worth matching against.
  if (raw.length > 64) return null;
  const m = STRONG_VERSION.exec(raw);
  return m ? Number(m[1]) : null;
}
