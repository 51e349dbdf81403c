/**
 * One stream's message ids inside its duplicate window, in memory: the map is kept in time order (an id
 * stored again moves to the end), so the expired ids are always its first ones. SQLite keeps the same ids
 * in append order (`dedup_log`, store.ts) for the next open.
 */
export class DedupWindow {
  private readonly ids = new Map<string, { readonly seq: number; readonly time: number }>();

  /** The sequence `id` was stored under when that is less than `windowMs` before `now`, else null. */
  seen(id: string, now: number, windowMs: number): number | null {
    const entry = this.ids.get(id);
    return entry !== undefined && now - entry.time < windowMs ? entry.seq : null;
  }

  record(id: string, seq: number, time: number): void {
    this.ids.delete(id);
    this.ids.set(id, { seq, time });
  }

  /** Forgets the ids stored before `cutoff`; returns the newest sequence forgotten (0 for none). */
  forgetBefore(cutoff: number): number {
    let newest = 0;
    for (const [id, entry] of this.ids) {
      if (entry.time >= cutoff) break;
      this.ids.delete(id);
      newest = entry.seq;
    }
    return newest;
  }
}
