/**
 * The newest messages of one stream, kept in memory as they are appended. Readers that keep up with a
 * stream (followers, durable consumers) ask for what was just committed: serving that from here spares
 * a SQLite query and a row decode per reader per commit, which was most of a busy node's reading.
 * SQLite stays the truth: anything older than the tail, or any doubt, is read from the database.
 */
import type { StoredMessage } from '../bus.js';

const MAX_MESSAGES = 8192;
const MAX_BYTES = 16 * 1024 * 1024;
/**
 * A larger message is not kept: the tail starts again after it. A stream of large documents (configuration
 * revisions) would otherwise keep the last 16 MiB of them for the life of the node, memory that follows
 * history; such a message is read once per reader from the database instead.
 */
const MAX_KEPT_BYTES = 64 * 1024;

export class Tail {
  /** Messages with consecutive sequences from `first`; null where one was removed. */
  private items: Array<StoredMessage | null> = [];
  /** Index of the oldest kept item (dropping from the front moves it instead of shifting). */
  private head = 0;
  private first = 0;
  private bytes = 0;

  /** Keeps a message just appended; a gap in sequences (never expected) starts the tail anew. */
  push(message: StoredMessage): void {
    if (message.data.byteLength > MAX_KEPT_BYTES) {
      this.clear();
      return;
    }
    if (this.size() > 0 && message.seq !== this.first + this.size()) this.clear();
    if (this.size() === 0) this.first = message.seq;
    this.items.push(message);
    this.bytes += message.data.byteLength;
    while (this.size() > MAX_MESSAGES || (this.bytes > MAX_BYTES && this.size() > 1)) this.dropOldest();
  }

  /** A message removed from the stream (limits, a work-queue ack, a purge of one key). */
  remove(seq: number): void {
    const i = this.head + seq - this.first;
    if (seq < this.first || i >= this.items.length) return;
    const message = this.items[i];
    if (message) this.bytes -= message.data.byteLength;
    this.items[i] = null;
  }

  clear(): void {
    this.items = [];
    this.head = 0;
    this.bytes = 0;
  }

  /** The message at `seq`: null when it was removed, undefined when the tail does not reach back to it. */
  get(seq: number): StoredMessage | null | undefined {
    if (this.size() === 0 || seq < this.first) return undefined;
    const i = this.head + seq - this.first;
    return i < this.items.length ? this.items[i] : undefined;
  }

  /** Up to `limit` messages with `from <= seq <= to`, or undefined when the tail does not reach back to `from`. */
  page(from: number, to: number, limit: number): StoredMessage[] | undefined {
    if (this.size() === 0 || from < this.first) return undefined;
    const out: StoredMessage[] = [];
    const end = Math.min(this.items.length, this.head + to - this.first + 1);
    for (let i = this.head + from - this.first; i < end && out.length < limit; i++) {
      const message = this.items[i];
      if (message) out.push(message);
    }
    return out;
  }

  private size(): number {
    return this.items.length - this.head;
  }

  private dropOldest(): void {
    const message = this.items[this.head];
    if (message) this.bytes -= message.data.byteLength;
    this.items[this.head] = null;
    this.head += 1;
    this.first += 1;
    // Compact once the dropped front is as long as what is kept.
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
  }
}
