/**
 * What a projection declares to the runner (`runner.ts`), which owns replay, checkpoints, the live tail and
 * recovery. Two sources exist: a stream (replayed from its start or a checkpoint, then followed) and a KV
 * bucket (its current records, then every change; the bucket's own arbitration decides which writes count,
 * so a bucket is watched, never replayed as a raw stream).
 */
import type { Logger } from 'pino';
import type { Bus, Kv, KvEntry, SkipBodies, StoredMessage } from '../../bus/index.js';
import type { CheckpointStore } from './checkpoints.js';

/** A read model rebuildable by construction: a pure fold of one stream's messages. */
export interface Projection<S> {
  readonly name: string;
  /** Bump when `apply` or the state's shape changes: a checkpoint of another version is discarded. */
  readonly version: number;
  readonly stream: string;
  /**
   * Subject filter inside the stream (wildcards allowed); omitted, every message of the stream is folded
   * (no filter to test per message when the projection reads all the stream holds).
   */
  readonly subjects?: string;
  /**
   * Where a replay from zero starts: the first message stored at or after this instant (a seeding bound);
   * default the stream's first message. A checkpoint resumes after its sequence whatever this says.
   */
  since?(): Date;
  /**
   * Replay reads windows of about this many bytes instead of one read to the end: an engine reads a window
   * whole before handing it over, so a long history of large records never sits in memory at once.
   */
  readonly replayWindowBytes?: number;
  /**
   * Where a start begins when the stream no longer holds its first records (`firstSeq` > 1, a trim): a
   * state folded up to a sequence at least `firstSeq - 1` (the records after it are folded on top), or
   * null when there is none. Consulted on every boot and rebuild that would otherwise fold from zero, and
   * in place of a checkpoint that lies below the trim. Without a seed, the runner folds what is held.
   */
  seed?(firstSeq: number): Promise<{ state: S; seq: number } | null>;
  /**
   * Replay may leave out the bodies of these messages (`ReplayOptions.skipBodies`): `apply` then gets an
   * empty `data` and reads what it needs from the header. The live tail always carries bodies.
   */
  readonly skipBodies?: SkipBodies;
  init(): S;
  /** Folds one message into the state (in place). Must not throw on bad data: skip it. */
  apply(state: S, message: StoredMessage): void;
  /**
   * Called once the boot replay (or a rebuild) has folded the stream up to its end at start, before the
   * live tail is followed: where a projection finishes what it deferred while replaying.
   */
  replayed?(state: S): void;
  /**
   * Called before a replay folds at most `messages` messages into `state`: where a projection reserves room
   * so that a large replay grows nothing on the way.
   */
  replaying?(state: S, messages: number): void;
  /** Coordination-store keys folded beside the stream: each one's value once the replay is done, then every change. */
  readonly watches?: readonly KeyWatch<S>[];
  /** Awaited at the end of a boot or rebuild, before the projection reads as ready (a document read back). */
  settle?(state: S): Promise<void>;
  /** Checkpoint codec; a projection without one always replays from zero. */
  readonly checkpoint?: {
    save(state: S): unknown;
    /** Null when the saved value cannot be read (the runner then replays from zero). */
    load(saved: unknown): S | null;
  };
}

/** One key of a KV bucket whose value a stream projection folds too. */
export interface KeyWatch<S> {
  readonly bucket: Kv;
  readonly key: string;
  apply(state: S, entry: KvEntry): void;
}

/** A read model of a KV bucket: every current record at boot, then every change, in revision order. */
export interface BucketProjection<S> {
  readonly name: string;
  readonly version: number;
  readonly bucket: Kv;
  /** Key filter (wildcards allowed); default every key. */
  readonly key?: string;
  init(): S;
  /**
   * Folds one record in place; must not throw on bad data. A record may arrive twice (the boot reads the
   * current values beside the watch), so the fold keeps the newest revision per key.
   */
  apply(state: S, entry: KvEntry): void;
}

export type AnyProjection<S> = Projection<S> | BucketProjection<S>;

export function isBucketProjection<S>(p: AnyProjection<S>): p is BucketProjection<S> {
  return 'bucket' in p;
}

export interface RunnerOptions<S> {
  /** Needed by a stream projection; a bucket projection reads its bucket. */
  readonly bus?: Bus;
  readonly projection: AnyProjection<S>;
  readonly checkpoints?: CheckpointStore;
  /** Save at most this often while following (and always after the boot replay and at stop). Default 60 s. */
  readonly checkpointEveryMs?: number;
  readonly logger?: Logger;
  /** Called after each live (post-boot) stream message is applied. */
  readonly onLive?: (state: S, message: StoredMessage) => void;
}

export interface BootInfo {
  readonly from: 'zero' | 'checkpoint' | 'snapshot';
  readonly checkpointSeq: number;
  readonly replayed: number;
}

export interface RunningProjection<S> {
  readonly name: string;
  /** The current state (replaced by `rebuild`). */
  state(): S;
  /** The last stream sequence (or bucket revision) folded in. */
  seq(): number;
  /** How the last boot or rebuild went: from a checkpoint or a seed (and its sequence) or from zero, and how much was replayed. */
  readonly boot: BootInfo;
  /** Resolves once the state reflects at least `seq` (false after `timeoutMs`). */
  until(seq: number, timeoutMs: number): Promise<boolean>;
  /** Resolves true once `predicate` holds (checked after every change), false after `timeoutMs`. */
  when(predicate: (state: S) => boolean, timeoutMs: number): Promise<boolean>;
  /** Calls `listener` after every live change (not during a boot or rebuild); returns the unsubscribe. */
  onChange(listener: (state: S) => void): () => void;
  /** Tells waiters and listeners the state changed outside a fold (a projection's own deferred work). */
  notify(): void;
  saveCheckpoint(): void;
  /** Drops the state (and any checkpoint) and replays from zero through the boot's own code path. */
  rebuild(): Promise<void>;
  stop(): Promise<void>;
}
