/**
 * The one reading of the precondition headers, `If-Match` and `If-None-Match` (RFC 9110 13.1): `*`, or a
 * list of entity tags, each `"v"`, weak `W/"v"`, or (spec write rule 5) a bare `v`. Routes compare with
 * `strongMatch` under `If-Match` (a weak tag never matches) and `weakMatch` under `If-None-Match`.
 */

export interface EntityTag {
  readonly value: string;
  readonly weak: boolean;
}

/** `*`, or the tags listed (none for a header of only commas and spaces). */
export type TagList = { readonly any: true } | { readonly any: false; readonly tags: readonly EntityTag[] };

/** A header far longer than any list a client would send is not worth reading whole. */
const MAX_HEADER = 8_192;
/** One element: optional weakness, then a quoted tag (no quote inside) or a bare run up to a comma. */
const ELEMENT = /\s*(W\/)?(?:"([^"]*)"|([^,\s"]+))\s*(?:,|$)/y;

/** The tags of a precondition header; null when it is not a list of tags (unparseable, or too long). */
export function parseTagList(raw: string): TagList | null {
  if (raw.length > MAX_HEADER) return null;
  if (raw.trim() === '*') return { any: true };
  const tags: EntityTag[] = [];
  ELEMENT.lastIndex = 0;
  let at = 0;
  while (at < raw.length) {
    // Empty list elements (`a, , b`) are allowed and skipped (RFC 9110 5.6.1).
    const gap = /[\s,]*/y;
    gap.lastIndex = at;
    gap.exec(raw);
    at = gap.lastIndex;
    if (at >= raw.length) break;
    ELEMENT.lastIndex = at;
    const m = ELEMENT.exec(raw);
    if (!m) return null;
    tags.push({ value: m[2] ?? m[3] ?? '', weak: m[1] !== undefined });
    at = ELEMENT.lastIndex;
  }
  return { any: false, tags };
}

/** The strong tags listed (what an `If-Match` can match). */
export const strongTags = (list: TagList & { any: false }): string[] =>
  list.tags.filter((t) => !t.weak).map((t) => t.value);

/** `If-Match`: `*` matches any current representation; a tag only strongly (a weak one never). */
export function strongMatch(list: TagList, current: string | null, same = sameTag): boolean {
  if (current === null) return false;
  return list.any || list.tags.some((t) => !t.weak && same(t.value, current));
}

/** `If-None-Match`: `*` matches any current representation; a tag weakly (weakness ignored). */
export function weakMatch(list: TagList, current: string | null, same = sameTag): boolean {
  if (current === null) return false;
  return list.any || list.tags.some((t) => same(t.value, current));
}

const sameTag = (a: string, b: string): boolean => a === b;
