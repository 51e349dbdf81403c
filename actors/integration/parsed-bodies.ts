/**
 * Webhook bodies the receiver already parsed, handed to routing on the same node so a delivery's JSON is
 * parsed once, not again when the integration host reads the stored copy. Kept by delivery key from just
 * before the append (so routing, which may start before the receiver resumes, finds it), and used only when
 * the stored bytes are the very bytes that were parsed: a stale or foreign entry is never mistaken for the
 * parse of another body. A delivery routed by another node (JetStream) leaves its entry behind; entries are
 * bounded in count, bytes and age, and a miss only costs the parse this saves.
 */

/** Bodies above this are parsed again by routing rather than held: the memory matters more there. */
const ENTRY_BYTES_MAX = 1024 * 1024;
const TOTAL_BYTES_MAX = 8 * 1024 * 1024;
/** About two backlogs' worth (answers wait once routing is 1,000 behind: http/webhooks/backlog.ts). */
const ENTRIES_MAX = 2048;
/** Routing on this node takes a delivery within seconds; older entries were routed elsewhere. */
const AGE_MAX_MS = 10_000;

interface Entry {
  readonly body: Uint8Array;
  readonly json: unknown;
  readonly at: number;
}

export class ParsedBodies {
  /** In insertion order, so the oldest is first. */
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** `json` is what routing makes of `body` (http/webhooks/receiver.ts `Accepted.parsed`). */
  keep(key: string, body: Uint8Array, json: unknown): void {
    if (body.byteLength > ENTRY_BYTES_MAX) return;
    this.remove(key);
    const at = this.now();
    this.entries.set(key, { body, json, at });
    this.bytes += body.byteLength;
    for (const [oldest, entry] of this.entries) {
      if (this.entries.size <= ENTRIES_MAX && this.bytes <= TOTAL_BYTES_MAX && at - entry.at <= AGE_MAX_MS)
        break;
      this.remove(oldest);
    }
  }

  /** The append was a duplicate or failed: nothing of `body` will be routed from here. */
  forget(key: string, body: Uint8Array): void {
    if (this.entries.get(key)?.body === body) this.remove(key);
  }

  /** The parse of `data`, when it was kept under `key` for these same bytes; undefined otherwise. */
  take(key: string, data: Uint8Array): unknown {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.remove(key);
    return Buffer.from(entry.body.buffer, entry.body.byteOffset, entry.body.byteLength).equals(data)
      ? entry.json
      : undefined;
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    this.bytes -= entry.body.byteLength;
  }
}
