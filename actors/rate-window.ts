/**
 * `notification_rate_limit`: how many inbound notifications one seat may be woken by per minute (ops/config.md
 * "Notification rate limit"; the spec leaves unit and default open: per minute, 0 or absent = no limit). A
 * sliding window of the last minute's admissions per seat; what is over the limit is skipped, not queued.
 * One window per node, shared by what wakes seats on notice: the webhook router and the native tracker's
 * comment wakes.
 */
import { newEvent } from '../bus/index.js';
import { EventCategory, ReservedActor, type EventRecord } from '../schema/index.js';

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

/**
 * The record of a wake not given (`NotificationSkipped`): its id is per (notification, seat), so a
 * redelivery records it once.
 */
export function rateLimitedRecord(skip: {
  readonly notification: string;
  readonly vendor: string;
  readonly recipient: string;
  readonly limit: number;
  /** What the notice was, for the summary (`tracker-b issue …`, `a comment on ENG-1`). */
  readonly about: string;
  /** `<node>/<component>` that counted it. */
  readonly source: string;
  readonly trace_id: string;
}): EventRecord {
  return {
    ...newEvent({
      type: 'NotificationSkipped',
      category: EventCategory.Notification,
      source: skip.source,
      summary: `${skip.recipient} not woken by ${skip.about}: over ${skip.limit} notifications a minute`,
      actor: ReservedActor.System,
      agent_id: skip.recipient,
      trace: { trace_id: skip.trace_id, parent_span_id: null },
      payload: {
        notification: skip.notification,
        vendor: skip.vendor,
        recipient: skip.recipient,
        reason: 'rate_limited',
        limit_per_minute: skip.limit,
      },
    }),
    id: `skip-${skip.notification}:${skip.recipient}`,
  };
}
