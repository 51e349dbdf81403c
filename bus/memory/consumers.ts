/**
 * Durable consumers of the memory engine. A consumer hands its handler messages in stream order, one
 * at a time unless its spec allows more in flight (`concurrency`); returning acknowledges, throwing schedules a redelivery, TerminateError drops. Its
 * position (the ack floor plus acks above it) is persisted, so a restart redelivers exactly what was
 * not acknowledged.
 */
import type { Logger } from 'pino';
import type { ConsumeHandler, ConsumerSpec, StoredMessage } from '../bus.js';
import { BusError, RedeliverError, TerminateError } from '../errors.js';
import { assertName, assertSubject, subjectMatches } from '../subject-match.js';
import type { Db } from './store.js';
import type { StreamStore } from './streams.js';

/** What a consumer needs from the engine. */
export interface ConsumerHost {
  readonly db: Db;
  readonly streams: StreamStore;
  readonly logger: Logger;
  /** Runs `work` in the next group commit (acks need not be awaited: a lost ack only redelivers). */
  enqueue(work: () => void): void;
  /** Resolves once everything enqueued so far is committed. */
  committed(): Promise<void>;
}

const defaultAckWaitMs = 30_000;
const pageSize = 256;
/**
 * Bodies a consumer's handler calls hold at once past the first call: many small messages share each
 * commit, while a few large ones (a 25 MiB delivery) never make a node hold `concurrency` of them.
 */
export const IN_FLIGHT_BYTES_MAX = 16 * 1024 * 1024;

export class DurableConsumer {
  private running = true;
  private floor: number;
  private readonly acked = new Set<number>();
  private nextSeq: number;
  private readonly redeliveries = new Map<number, { due: number; count: number }>();
  /** Messages read ahead from the stream (a page), not yet looked at: one query per page, not per message. */
  private ahead: StoredMessage[] = [];
  private aheadAt = 0;
  private wakeUp: (() => void) | null = null;
  /** Acks not yet written: work-queue messages to drop, acks above the floor, whether the floor moved. */
  private unsaved: { removed: number[]; acks: number[]; floorMoved: boolean } = {
    removed: [],
    acks: [],
    floorMoved: false,
  };
  private saveQueued = false;
  private timer: NodeJS.Timeout | null = null;
  private readonly done: Promise<void>;
  private readonly sql;

  constructor(
    private readonly host: ConsumerHost,
    readonly stream: string,
    readonly spec: ConsumerSpec,
    private readonly handler: ConsumeHandler,
  ) {
    assertName('durable', spec.durable);
    if (spec.filterSubject !== undefined) assertSubject(spec.filterSubject, true);
    const info = host.streams.info(stream);
    this.sql = {
      upsert: host.db.prepare(
        'INSERT INTO consumers (stream, name, spec, ack_floor) VALUES (?, ?, ?, ?) ON CONFLICT(stream, name) DO UPDATE SET spec = excluded.spec',
      ),
      get: host.db.prepare('SELECT ack_floor FROM consumers WHERE stream = ? AND name = ?'),
      setFloor: host.db.prepare('UPDATE consumers SET ack_floor = ? WHERE stream = ? AND name = ?'),
      addAck: host.db.prepare('INSERT OR IGNORE INTO consumer_acks (stream, name, seq) VALUES (?, ?, ?)'),
      dropAcks: host.db.prepare('DELETE FROM consumer_acks WHERE stream = ? AND name = ? AND seq <= ?'),
      acks: host.db.prepare('SELECT seq FROM consumer_acks WHERE stream = ? AND name = ?'),
    };
    const saved = this.sql.get.get(stream, spec.durable) as { ack_floor: number } | undefined;
    if (saved) {
      this.floor = saved.ack_floor;
      for (const row of this.sql.acks.all(stream, spec.durable) as Array<{ seq: number }>)
        this.acked.add(row.seq);
    } else {
      this.floor = spec.deliverPolicy === 'new' ? info.lastSeq : 0;
    }
    this.sql.upsert.run(stream, spec.durable, JSON.stringify(spec), this.floor);
    this.nextSeq = this.floor + 1;
    this.done = this.loop();
  }

  /** Whether any of these newly written subjects passes the filter (a message for this consumer). */
  wants(subjects: ReadonlySet<string>): boolean {
    const filter = this.spec.filterSubject;
    if (filter === undefined) return true;
    for (const subject of subjects) if (subjectMatches(filter, subject)) return true;
    return false;
  }

  /** Messages past the floor not yet acknowledged (a filter's skipped messages counted: an upper bound). */
  pending(): number {
    return Math.max(0, this.host.streams.info(this.stream).lastSeq - this.floor - this.acked.size);
  }

  /** Every message at or below it is acknowledged or never delivered (Bus.consumerAckFloor). */
  ackFloor(): number {
    return this.floor;
  }

  /** New messages were committed to the stream. */
  wake(): void {
    this.wakeUp?.();
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.wakeUp?.();
    await this.done;
    // Acks are committed by the time stop resolves: a work queue no longer holds what was handled.
    await this.host.committed();
  }

  private async loop(): Promise<void> {
    const limit = Math.max(
      1,
      Math.floor(Math.min(this.spec.concurrency ?? 1, this.spec.maxInFlight ?? Infinity)),
    );
    const inFlight = new Set<Promise<void>>();
    let bytes = 0;
    while (this.running) {
      if (inFlight.size >= limit || (inFlight.size > 0 && bytes >= IN_FLIGHT_BYTES_MAX)) {
        await Promise.race(inFlight);
        continue;
      }
      const next = this.pick();
      if (next) {
        const size = next.message.data.byteLength;
        bytes += size;
        const call: Promise<void> = this.deliver(next.message, next.count).finally(() => {
          bytes -= size;
          inFlight.delete(call);
          // A finished call may have scheduled a redelivery, or freed room while the loop sleeps.
          this.wakeUp?.();
        });
        inFlight.add(call);
        if (limit === 1) await call;
        continue;
      }
      await this.sleep();
    }
    await Promise.all(inFlight);
  }

  /** A due redelivery first (oldest sequence), else the next new message. */
  private pick(): { message: StoredMessage; count: number } | null {
    const now = Date.now();
    let due: number | null = null;
    for (const [seq, r] of this.redeliveries) if (r.due <= now && (due === null || seq < due)) due = seq;
    if (due !== null) {
      const r = this.redeliveries.get(due) as { due: number; count: number };
      this.redeliveries.delete(due);
      const message = this.host.streams.getMessage(this.stream, due);
      if (message) return { message, count: r.count + 1 };
      this.ack(due, false);
      return this.pick();
    }
    for (;;) {
      while (this.aheadAt < this.ahead.length) {
        const message = this.ahead[this.aheadAt++]!;
        this.nextSeq = message.seq + 1;
        if (this.acked.has(message.seq) || this.redeliveries.has(message.seq)) continue;
        if (
          this.spec.filterSubject !== undefined &&
          !subjectMatches(this.spec.filterSubject, message.subject)
        )
          continue;
        return { message, count: 1 };
      }
      const info = this.host.streams.info(this.stream);
      if (this.nextSeq > info.lastSeq) return null;
      const from = Math.max(this.nextSeq, info.firstSeq);
      this.ahead = this.host.streams.page(this.stream, from, info.lastSeq, pageSize);
      this.aheadAt = 0;
      if (this.ahead.length === 0) {
        this.nextSeq = info.lastSeq + 1;
        return null;
      }
    }
  }

  private async deliver(message: StoredMessage, deliveryCount: number): Promise<void> {
    try {
      await this.handler({ ...message, deliveryCount });
      this.ack(message.seq, true);
    } catch (error) {
      if (error instanceof TerminateError) {
        this.host.logger.warn(
          { stream: this.stream, durable: this.spec.durable, seq: message.seq, reason: error.message },
          'message terminated',
        );
        this.ack(message.seq, true);
        return;
      }
      const maxDeliver = this.spec.maxDeliver ?? 0;
      if (maxDeliver > 0 && deliveryCount >= maxDeliver) {
        this.host.logger.error(
          { stream: this.stream, durable: this.spec.durable, seq: message.seq, deliveries: deliveryCount },
          'message dropped after max deliveries',
        );
        this.ack(message.seq, true);
        return;
      }
      const delay =
        error instanceof RedeliverError ? error.delayMs : (this.spec.ackWaitMs ?? defaultAckWaitMs);
      this.redeliveries.set(message.seq, { due: Date.now() + delay, count: deliveryCount });
    }
  }

  /** Marks `seq` done, advances the floor past everything done, persists; work queues drop the message. */
  private ack(seq: number, removeFromWorkQueue: boolean): void {
    this.acked.add(seq);
    const before = this.floor;
    // The floor is below the oldest message not yet done: a pending redelivery or the next new one.
    let lowestOpen = this.nextSeq;
    for (const pending of this.redeliveries.keys()) lowestOpen = Math.min(lowestOpen, pending);
    while (this.floor + 1 < lowestOpen && (this.acked.has(this.floor + 1) || !this.isOpen(this.floor + 1))) {
      this.floor += 1;
      this.acked.delete(this.floor);
    }
    const workQueue =
      removeFromWorkQueue && this.host.streams.state(this.stream).spec.retention === 'workqueue';
    if (workQueue) this.unsaved.removed.push(seq);
    if (seq > this.floor) this.unsaved.acks.push(seq);
    if (this.floor !== before) this.unsaved.floorMoved = true;
    // One write of the position per commit, however many acks it carries.
    if (!this.saveQueued) {
      this.saveQueued = true;
      this.host.enqueue(() => this.save());
    }
  }

  /** Persists the acks since the last commit (runs inside one). */
  private save(): void {
    this.saveQueued = false;
    const { removed, acks, floorMoved } = this.unsaved;
    this.unsaved = { removed: [], acks: [], floorMoved: false };
    const { stream, floor } = this;
    const name = this.spec.durable;
    for (const seq of removed) this.host.streams.removeMessage(stream, seq);
    if (floorMoved) {
      this.sql.setFloor.run(floor, stream, name);
      this.sql.dropAcks.run(stream, name, floor);
    }
    for (const seq of acks) if (seq > floor) this.sql.addAck.run(stream, name, seq);
  }

  /** Sequences this consumer never delivers (filtered out or gone) count as done for the floor. */
  private isOpen(seq: number): boolean {
    const message = this.host.streams.getMessage(this.stream, seq);
    if (!message) return false;
    return this.spec.filterSubject === undefined || subjectMatches(this.spec.filterSubject, message.subject);
  }

  private sleep(): Promise<void> {
    return new Promise<void>((resolve) => {
      const finish = (): void => {
        if (this.timer) clearTimeout(this.timer);
        this.timer = null;
        this.wakeUp = null;
        resolve();
      };
      this.wakeUp = finish;
      let nextDue = Infinity;
      for (const r of this.redeliveries.values()) nextDue = Math.min(nextDue, r.due);
      if (nextDue !== Infinity) {
        this.timer = setTimeout(finish, Math.max(0, nextDue - Date.now()));
        this.timer.unref();
      }
    });
  }
}

/** One live consumer per durable name in this process. */
export function refuseSecond(
  active: ReadonlyMap<string, DurableConsumer>,
  stream: string,
  durable: string,
): void {
  if (active.has(`${stream}/${durable}`)) {
    throw new BusError(`durable consumer ${durable} on ${stream} is already consuming in this process`);
  }
}

/** A consumer not live in this process: its saved ack floor, or null when there is no such consumer. */
export function savedAckFloor(db: Db, stream: string, durable: string): number | null {
  const saved = db
    .prepare('SELECT ack_floor FROM consumers WHERE stream = ? AND name = ?')
    .get(stream, durable) as { ack_floor: number } | undefined;
  return saved ? saved.ack_floor : null;
}

/** A consumer not live in this process: its saved position against the stream's last sequence. */
export function savedPending(db: Db, stream: string, durable: string, lastSeq: number): number | null {
  const floor = savedAckFloor(db, stream, durable);
  if (floor === null) return null;
  const { acked } = db
    .prepare('SELECT COUNT(*) AS acked FROM consumer_acks WHERE stream = ? AND name = ? AND seq > ?')
    .get(stream, durable, floor) as { acked: number };
  return Math.max(0, lastSeq - floor - acked);
}
