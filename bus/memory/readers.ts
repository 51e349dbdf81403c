/**
 * Reading the memory engine's streams in order: `replay` (a bounded read, page by page) and `follow` (a
 * push of every message committed past a position, woken after each commit that touched the stream).
 */
import type { Logger } from 'pino';
import type { FollowOptions, ReplayOptions, StoredMessage, Subscription } from '../bus.js';
import { BusClosedError } from '../errors.js';
import { assertSubject, subjectMatches } from '../subject-match.js';
import type { StreamStore } from './streams.js';

interface Follower {
  readonly stream: string;
  next: number;
  readonly filter: ((subject: string) => boolean) | null;
  readonly onMessage: (msg: StoredMessage) => void;
}

/** A subject filter with its answers remembered: a stream holds few distinct subjects. */
function matcher(filter: string): (subject: string) => boolean {
  const seen = new Map<string, boolean>();
  return (subject) => {
    let hit = seen.get(subject);
    if (hit === undefined) {
      hit = subjectMatches(filter, subject);
      if (seen.size < 10_000) seen.set(subject, hit);
    }
    return hit;
  };
}

export class StreamReaders {
  private readonly followers = new Set<Follower>();

  constructor(
    private readonly streams: StreamStore,
    private readonly logger: Logger,
    private readonly closed: () => boolean,
  ) {}

  async *replay(stream: string, opts: ReplayOptions = {}): AsyncIterable<StoredMessage> {
    if (this.closed()) throw new BusClosedError('the bus is closed');
    if (opts.subject !== undefined) assertSubject(opts.subject, true);
    const info = this.streams.info(stream);
    const to = opts.toSeq ?? info.lastSeq;
    const filter =
      opts.subject === undefined ? null : { subject: opts.subject, matches: matcher(opts.subject) };
    let from = this.startSeq(stream, opts);
    while (from <= to && !this.closed()) {
      if (filter !== null) {
        const { messages, next } = this.streams.pageMatching(stream, from, to, 2048, filter, opts.skipBodies);
        yield* messages;
        from = next;
      } else {
        const page = this.streams.page(stream, from, to, 2048, opts.skipBodies);
        if (page.length === 0) return;
        yield* page;
        from = (page[page.length - 1] as StoredMessage).seq + 1;
      }
      // Let a caller that stops iterating, or closes the bus, act between pages.
      await Promise.resolve();
    }
  }

  private startSeq(stream: string, opts: { fromSeq?: number; since?: Date }): number {
    const bySeq = opts.fromSeq ?? 1;
    const byTime = opts.since ? this.streams.seqAtTime(stream, opts.since) : 1;
    return Math.max(1, bySeq, byTime);
  }

  /** Starts following (the caller checked the bus is open); delivers the backlog at once. */
  follow(stream: string, opts: FollowOptions, onMessage: (msg: StoredMessage) => void): Subscription {
    this.streams.info(stream);
    if (opts.subject !== undefined) assertSubject(opts.subject, true);
    const filter = opts.subject === undefined ? null : matcher(opts.subject);
    const follower: Follower = { stream, next: this.startSeq(stream, opts), filter, onMessage };
    this.followers.add(follower);
    this.pump(follower);
    return {
      stop: () => {
        this.followers.delete(follower);
        return Promise.resolve();
      },
    };
  }

  /** After a commit that touched `stream`: its followers take what is new. */
  wake(stream: string): void {
    for (const follower of this.followers) if (follower.stream === stream) this.pump(follower);
  }

  clear(): void {
    this.followers.clear();
  }

  /** Delivers everything committed past the follower's position, in order. */
  private pump(follower: Follower): void {
    const last = this.streams.info(follower.stream).lastSeq;
    while (follower.next <= last && this.followers.has(follower)) {
      const page = this.streams.page(follower.stream, follower.next, last, 1024);
      if (page.length === 0) {
        follower.next = last + 1;
        return;
      }
      for (const msg of page) {
        follower.next = msg.seq + 1;
        if (follower.filter !== null && !follower.filter(msg.subject)) continue;
        try {
          follower.onMessage(msg);
        } catch (error) {
          this.logger.error({ err: error, stream: follower.stream, seq: msg.seq }, 'follower failed');
        }
        if (!this.followers.has(follower)) return;
      }
    }
  }
}
