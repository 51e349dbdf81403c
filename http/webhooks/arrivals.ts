/**
 * Records webhook arrivals as integration records (`svc.integrations.<vendor>.arrival`, SVC_INTEGRATIONS)
 * for `GET /integrations`, whose counts are a fold of them: any node reads the fleet's counts, and a
 * restart loses none. A verified delivery (accepted or duplicate) is counted in a record appended
 * before the sender is answered; the deliveries verified in one tick share that record (one append per
 * surface and outcome, not one per delivery, which under a burst was a third of the node's writes). Refusals and unconfigured deliveries, which anyone can send, are counted here and
 * appended in bulk (one record per surface and outcome per flush), so unsigned traffic cannot grow the
 * stream one record per request; `flush()` appends what is pending at once.
 */
import type { Logger } from 'pino';
import { Subjects, type Bus } from '../../bus/index.js';
import type { Arrival } from '../../schema/index.js';

export interface ArrivalsOptions {
  readonly bus: Bus;
  readonly nodeId: string;
  readonly logger?: Logger;
  /** How long refusals are counted before they are appended. Default 1 s. */
  readonly flushEveryMs?: number;
  readonly now?: () => number;
}

const encoder = new TextEncoder();

/** The vendor a surface belongs to (`chat/alice` → `chat`, `wiki/cloud` → `wiki`): the subject's kind. */
const vendorOf = (surface: string): string => surface.split('/')[0] ?? surface;

export class Arrivals {
  private readonly pending = new Map<string, Arrival>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();
  /** Verified deliveries of this tick, appended together on the next. */
  private verified: { records: Map<string, Arrival>; appended: Promise<void> } | null = null;

  constructor(private readonly opts: ArrivalsOptions) {}

  private at(): string {
    return new Date(this.opts.now?.() ?? Date.now()).toISOString();
  }

  private async append(record: Arrival): Promise<void> {
    await this.opts.bus.publish(
      Subjects.integration(vendorOf(record.surface), 'arrival'),
      encoder.encode(JSON.stringify(record)),
    );
  }

  /**
   * One verified delivery: resolves once the record counting it is appended; a failure is logged (the
   * delivery itself is already kept).
   */
  record(surface: string, outcome: 'accepted' | 'duplicate'): Promise<void> {
    if (this.verified === null) {
      const records = new Map<string, Arrival>();
      const appended = new Promise<void>((resolve) => setImmediate(resolve)).then(async () => {
        this.verified = null;
        await Promise.all([...records.values()].map((record) => this.appendLogged(record)));
      });
      this.verified = { records, appended };
    }
    const { records, appended } = this.verified;
    const key = `${surface}\u0000${outcome}`;
    const prior = records.get(key);
    records.set(key, {
      type: 'arrival',
      surface,
      outcome,
      count: (prior?.count ?? 0) + 1,
      at: this.at(),
      node: this.opts.nodeId,
    });
    return appended;
  }

  private async appendLogged(record: Arrival): Promise<void> {
    try {
      await this.append(record);
    } catch (err) {
      const { surface, outcome, count } = record;
      this.opts.logger?.warn(
        { err, event: 'arrival_unrecorded', surface, outcome, count },
        'arrival_unrecorded',
      );
    }
  }

  /** A refused or unconfigured delivery: counted, appended with the next flush. */
  count(surface: string, outcome: 'refused' | 'not_configured'): void {
    const key = `${surface}\u0000${outcome}`;
    const prior = this.pending.get(key);
    const at = this.at();
    this.pending.set(key, {
      type: 'arrival',
      surface,
      outcome,
      count: (prior?.count ?? 0) + 1,
      at,
      node: this.opts.nodeId,
    });
    if (this.timer === null) {
      this.timer = setTimeout(() => void this.flush(), this.opts.flushEveryMs ?? 1000);
      this.timer.unref();
    }
  }

  /** Appends every pending count; counts a failed append could not keep are counted again for the next. */
  flush(): Promise<void> {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    const batch = [...this.pending.values()];
    this.pending.clear();
    this.flushing = this.flushing.then(async () => {
      for (const record of batch) {
        try {
          await this.append(record);
        } catch (err) {
          this.opts.logger?.warn(
            { err, event: 'arrival_unrecorded', surface: record.surface },
            'arrival_unrecorded',
          );
          const key = `${record.surface}\u0000${record.outcome}`;
          const later = this.pending.get(key);
          this.pending.set(key, later ? { ...later, count: later.count + record.count } : record);
        }
      }
      if (this.pending.size > 0 && this.timer === null) {
        this.timer = setTimeout(() => void this.flush(), this.opts.flushEveryMs ?? 1000);
        this.timer.unref();
      }
    });
    return this.flushing;
  }
}
