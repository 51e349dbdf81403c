/**
 * The projection runner (STYLE 5): replays a projection's stream at boot, then follows the live tail.
 * It owns checkpoints: a checkpoint of the same projection version and stream resumes after its sequence;
 * anything else (no checkpoint, another version, a sequence past the stream's end) replays from zero.
 * `rebuild()` drops the state and replays from zero through the same code path. The tail is `Bus.follow`,
 * which resumes after the last sequence folded when the server behind it is lost (ops/fleet.md "Failover").
 */
import type { Logger } from 'pino';
import type { Bus, StoredMessage, Subscription } from '../../bus/index.js';
import type { CheckpointStore } from './checkpoints.js';

/** A read model rebuildable by construction: a pure fold of one stream's messages. */
export interface Projection<S> {
  readonly name: string;
  /** Bump when `apply` or the state's shape changes: older checkpoints are then ignored. */
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
  /** Checkpoint codec; a projection without one always replays from zero. */
  readonly checkpoint?: {
    save(state: S): unknown;
    /** Null when the saved value cannot be read (the runner then replays from zero). */
    load(saved: unknown): S | null;
  };
}

export interface RunnerOptions<S> {
  readonly bus: Bus;
  readonly projection: Projection<S>;
  readonly checkpoints?: CheckpointStore;
  /** Save at most this often while following (and always after the boot replay and at stop). Default 60 s. */
  readonly checkpointEveryMs?: number;
  readonly logger?: Logger;
  /** Called after each live (post-boot) message is applied. */
  readonly onLive?: (state: S, message: StoredMessage) => void;
}

export interface RunningProjection<S> {
  readonly name: string;
  /** The current state (replaced by `rebuild`). */
  state(): S;
  /** The last stream sequence folded in. */
  seq(): number;
  /** How boot went: from a checkpoint (and its sequence) or from zero, and how many messages were replayed. */
  readonly boot: {
    readonly from: 'zero' | 'checkpoint';
    readonly checkpointSeq: number;
    readonly replayed: number;
  };
  /** Resolves once the state reflects at least `seq` (false after `timeoutMs`). */
  until(seq: number, timeoutMs: number): Promise<boolean>;
  saveCheckpoint(): void;
  rebuild(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts a projection; resolves once the boot replay is complete and the live tail is followed. */
export async function runProjection<S>(opts: RunnerOptions<S>): Promise<RunningProjection<S>> {
  const { bus, projection: p } = opts;
  const everyMs = opts.checkpointEveryMs ?? 60_000;
  let state: S = p.init();
  let seq = 0;
  let savedSeq = 0;
  let lastSave = Date.now();
  let tail: Subscription | null = null;
  let replaying = true;
  const waiters = new Set<{ seq: number; wake: () => void }>();

  const save = (): void => {
    if (!opts.checkpoints || !p.checkpoint || seq === savedSeq) return;
    try {
      opts.checkpoints.save({
        name: p.name,
        version: p.version,
        stream: p.stream,
        seq,
        state: p.checkpoint.save(state),
      });
      savedSeq = seq;
      lastSave = Date.now();
    } catch (error) {
      opts.logger?.error({ err: error, projection: p.name }, 'projection checkpoint not saved');
    }
  };

  const fold = (message: StoredMessage): void => {
    if (message.seq <= seq) return;
    try {
      p.apply(state, message);
    } catch (error) {
      opts.logger?.error(
        { err: error, projection: p.name, seq: message.seq },
        'projection skipped a message',
      );
    }
    seq = message.seq;
    if (!replaying) {
      opts.onLive?.(state, message);
      if (Date.now() - lastSave >= everyMs) save();
    }
    if (waiters.size > 0) for (const w of waiters) if (seq >= w.seq) w.wake();
  };

  const start = async (
    fromZero: boolean,
  ): Promise<{ from: 'zero' | 'checkpoint'; checkpointSeq: number; replayed: number }> => {
    const info = await bus.streamInfo(p.stream);
    let from: 'zero' | 'checkpoint' = 'zero';
    state = p.init();
    seq = 0;
    const saved = fromZero ? null : (opts.checkpoints?.load(p.name) ?? null);
    if (
      saved &&
      p.checkpoint &&
      saved.version === p.version &&
      saved.stream === p.stream &&
      saved.seq <= info.lastSeq
    ) {
      const loaded = p.checkpoint.load(saved.state);
      if (loaded !== null) {
        state = loaded;
        seq = saved.seq;
        from = 'checkpoint';
      }
    }
    const checkpointSeq = seq;
    savedSeq = seq;
    replaying = true;
    // 1. history up to the last sequence at start, 2. the live tail from just after it.
    const since = seq === 0 ? p.since?.() : undefined;
    try {
      p.replaying?.(state, Math.max(0, info.lastSeq - seq));
    } catch (error) {
      opts.logger?.error({ err: error, projection: p.name }, 'projection replay hook failed');
    }
    for await (const message of bus.replay(p.stream, {
      fromSeq: seq + 1,
      toSeq: info.lastSeq,
      ...(p.subjects !== undefined ? { subject: p.subjects } : {}),
      ...(since ? { since } : {}),
    }))
      fold(message);
    const replayed = info.lastSeq - checkpointSeq;
    seq = Math.max(seq, info.lastSeq);
    try {
      p.replayed?.(state);
    } catch (error) {
      opts.logger?.error({ err: error, projection: p.name }, 'projection replay hook failed');
    }
    replaying = false;
    save();
    tail = await bus.follow(
      p.stream,
      { fromSeq: info.lastSeq + 1, ...(p.subjects !== undefined ? { subject: p.subjects } : {}) },
      fold,
    );
    opts.logger?.info(
      { projection: p.name, version: p.version, from, checkpoint_seq: checkpointSeq, replayed, seq },
      'projection ready',
    );
    return { from, checkpointSeq, replayed };
  };

  const boot = await start(false);
  return {
    name: p.name,
    state: () => state,
    seq: () => seq,
    boot,
    until(target, timeoutMs) {
      if (seq >= target) return Promise.resolve(true);
      return new Promise<boolean>((resolve) => {
        const waiter = {
          seq: target,
          wake: () => {
            clearTimeout(timer);
            waiters.delete(waiter);
            resolve(true);
          },
        };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          resolve(false);
        }, timeoutMs);
        timer.unref();
        waiters.add(waiter);
      });
    },
    saveCheckpoint: save,
    async rebuild() {
      await tail?.stop();
      tail = null;
      await start(true);
    },
    async stop() {
      await tail?.stop();
      tail = null;
      save();
      waiters.clear();
    },
  };
}
