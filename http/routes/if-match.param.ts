/**
 * `If-Match` naming a version this service gave as `ETag` (`"3"`, or a bare `3`), as on the work
 * tracker's items and files and the knowledge base's pages, read by the one precondition parser
 * (http/entity-tags.ts). A version is a count of changes, so more than 15 digits names none (and would
 * lose precision as a number): such a header, however long, is refused with the rest, never carried into a
 * write.
 */
import { parseTagList } from '../entity-tags.js';

const VERSION = /^\d{1,15}$/;

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
