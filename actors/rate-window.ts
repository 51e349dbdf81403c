/**
 * `notification_rate_limit`: how many inbound notifications one seat may be woken by per minute (ops/config.md
 * "Notification rate limit"; the spec leaves unit and default open: per minute, 0 or absent = no limit). A
 * sliding window of the last minute's admissions per seat; what is over the limit is skipped, not queued.
 * One window per node, shared by what wakes seats on notice: the webhook router and the native tracker's
 * comment wakes.
 */
const windowMs = 60_000;

export class RateWindow {
  private readonly admitted = new Map<string, number[]>();

  /** True when `seat` may take one more notification now (and counts it); false when over `perMinute`. */
  admit(seat: string, perMinute: number, now: number): boolean {
    if (!(perMinute > 0)) return true;
    const since = now - windowMs;
    const times = (this.admitted.get(seat) ?? []).filter((t) => t > since);
    const ok = times.length < perMinute;
    if (ok) times.push(now);
    if (times.length === 0) this.admitted.delete(seat);
    else this.admitted.set(seat, times);
    return ok;
  }
}
