/**
 * The first `limit` items of a sequence in an order, without sorting the whole of it: a page of a list
 * over thousands of rows compares each row once with the last it keeps, and sorts only what it keeps.
 */
export function firstInOrder<T>(items: Iterable<T>, limit: number, before: (a: T, b: T) => boolean): T[] {
  const kept: T[] = [];
  if (limit <= 0) return kept;
  for (const item of items) {
    const last = kept[kept.length - 1];
    if (kept.length === limit && last !== undefined && !before(item, last)) continue;
    let at = kept.length;
    while (at > 0 && before(item, kept[at - 1] as T)) at -= 1;
    kept.splice(at, 0, item);
    if (kept.length > limit) kept.pop();
  }
  return kept;
}
