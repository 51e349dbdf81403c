/**
 * What the memory engine keeps in memory about one stream: a cache of facts whose truth is in SQLite,
 * rebuilt at open and after a failed commit (streams.ts), corrected as messages go (retention.ts).
 */
import type { StreamSpec } from '../bus.js';
import type { DedupWindow } from './dedup.js';
import type { Tail } from './tail.js';

/** Internal spec: KV buckets add a per-subject history limit. */
export interface EngineStreamSpec extends StreamSpec {
  readonly maxMsgsPerSubject?: number;
}

export interface StreamState {
  spec: EngineStreamSpec;
  lastSeq: number;
  firstSeq: number;
  firstTime: number;
  lastTime: number;
  count: number;
  readonly subjectLast: Map<string, number>;
  readonly dedup: DedupWindow;
  /** The newest messages, for readers that keep up (tail.ts). */
  readonly tail: Tail;
}
