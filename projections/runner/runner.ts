/**
 * The projection runner (STYLE 5), the one way a read model is kept: it replays a projection's stream at
 * boot, then follows the live tail, and reads the coordination keys the projection watches beside it; a
 * bucket projection reads the bucket's records, then watches it. It owns checkpoints: a checkpoint of the
 * same projection version and stream resumes after its sequence; one of another version is discarded; anything
 * else (no checkpoint, a sequence past the stream's end) replays from zero. `rebuild()` drops the state and
 * replays from zero through the same code path. The tail is `Bus.follow`, which resumes after the last sequence
 * folded when the server behind it is lost (ops/fleet.md "Failover").
 */
import type { Bus, KvEntry, StoredMessage, Subscription } from '../../bus/index.js';
import { Observers } from './observers.js';
import { trackPosition } from './positions.js';
import {
  isBucketProjection,
  type BootInfo,
  type BucketProjection,
  type KeyWatch,
  type Projection,
  type RunnerOptions,
  type RunningProjection,
} from './projection.js';
import { replayInWindows } from './replay-windows.js';
import type { SharedTail } from './shared-tail.js';

export type {
  AnyProjection,
  BucketProjection,
  Projection,
  RunnerOptions,
  RunningProjection,
} from './projection.js';

/** Starts a projection; resolves once the boot replay is complete and the live tail is followed. */
export function runProjection<S>(opts: RunnerOptions<S>): Promise<RunningProjection<S>> {
  const p = opts.projection;
  return isBucketProjection(p) ? runBucket(opts, p) : runStream(opts, p);
}

type StreamInfo = Awaited<ReturnType<Bus['streamInfo']>>;

/** What one stream projection replays at boot: its range, and the seeding bound when it starts from zero. */
export interface ReplayRange {
  readonly fromSeq: number;
  readonly toSeq: number;
  readonly subject?: string;
  readonly since?: Date;
}

/**
 * One stream projection in its three boot steps, so that a boot may feed several projections of a stream
 * from one read (shared-replay.ts): `begin` settles where it resumes, `fold` takes the history (skipping
 * what it holds), `finish` follows the tail (its own, or the group's shared one) and reports ready.
 */
export interface StreamMember<S> {
  readonly projection: Projection<S>;
  begin(info: StreamInfo, fromZero: boolean): Promise<ReplayRange>;
  fold(message: StoredMessage): void;
  finish(tail?: SharedTail): Promise<BootInfo>;
  /** Its running handle once `finish` resolved. */
  running(boot: BootInfo): RunningProjection<S>;
}

async function runStream<S>(opts: RunnerOptions<S>, p: Projection<S>): Promise<RunningProjection<S>> {
  const bus = opts.bus;
  if (!bus) throw new Error(`projection ${p.name} reads stream ${p.stream}: the runner needs a bus`);
  const member = streamMember(opts, p);
  return member.running(await bootAlone(bus, member, false));
}

/** A member's boot on its own read (the runner's path for one projection, and every rebuild). */
async function bootAlone<S>(bus: Bus, member: StreamMember<S>, fromZero: boolean): Promise<BootInfo> {
  const p = member.projection;
  const info = await bus.streamInfo(p.stream);
  const begun = await member.begin(info, fromZero);
  const range = p.skipBodies !== undefined ? { ...begun, skipBodies: p.skipBodies } : begun;
  const history =
    p.replayWindowBytes !== undefined
      ? replayInWindows(
          bus,
          p.stream,
          { ...range, fromSeq: Math.max(range.fromSeq, info.firstSeq) },
          p.replayWindowBytes,
        )
      : bus.replay(p.stream, range);
  for await (const message of history) member.fold(message);
  return member.finish();
}

export function streamMember<S>(opts: RunnerOptions<S>, p: Projection<S>): StreamMember<S> {
  const bus = opts.bus;
  if (!bus) throw new Error(`projection ${p.name} reads stream ${p.stream}: the runner needs a bus`);
  const everyMs = opts.checkpointEveryMs ?? 60_000;
  let state: S = p.init();
  let seq = 0;
  let savedSeq = 0;
  let lastSave = Date.now();
  let subscriptions: Subscription[] = [];
  let replaying = true;
  let started: { info: StreamInfo; from: BootInfo['from']; checkpointSeq: number; at: number } | null = null;
  const observers = new Observers(
    () => state,
    () => seq,
    p.name,
    opts.logger,
  );

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

  const hook = (what: string, run: () => void): void => {
    try {
      run();
    } catch (error) {
      opts.logger?.error({ err: error, projection: p.name }, `projection ${what} hook failed`);
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
    observers.changed(!replaying);
  };

  const foldKey = (watch: KeyWatch<S>, entry: KvEntry): void => {
    hook('watch', () => watch.apply(state, entry));
    observers.changed(!replaying);
  };

  /** The checkpoint to resume from, or null; one of another version is discarded here. */
  const usableCheckpoint = (lastSeq: number): { seq: number; state: S } | null => {
    const saved = opts.checkpoints?.load(p.name) ?? null;
    if (!saved || !p.checkpoint) return null;
    if (saved.version !== p.version) {
      opts.checkpoints?.remove(p.name);
      opts.logger?.info(
        { projection: p.name, version: p.version, checkpoint_version: saved.version },
        'projection checkpoint of another version discarded: rebuilding by replay',
      );
      return null;
    }
    if (saved.stream !== p.stream || saved.seq > lastSeq) return null;
    const loaded = p.checkpoint.load(saved.state);
    return loaded === null ? null : { seq: saved.seq, state: loaded };
  };

  /** A seeded start on a trimmed stream, or null (logged: what follows folds without the trimmed records). */
  const seeded = async (firstSeq: number): Promise<{ seq: number; state: S } | null> => {
    if (!p.seed) return null;
    const seed = await p.seed(firstSeq);
    if (seed && seed.seq >= firstSeq - 1) return seed;
    opts.logger?.error(
      { projection: p.name, first_seq: firstSeq, seed_seq: seed?.seq ?? null },
      'projection starts on a trimmed stream without a seed reaching its first record',
    );
    return null;
  };

  // 1. history up to the last sequence at start, 2. the live tail from just after it, 3. watched keys.
  const begin = async (info: StreamInfo, fromZero: boolean): Promise<ReplayRange> => {
    state = p.init();
    seq = 0;
    let resumed = fromZero ? null : usableCheckpoint(info.lastSeq);
    // A seeded projection's checkpoint below a trim would skip the records between it and the stream's
    // first one (an unseeded one keeps its checkpoint: its stream drops old records by design).
    if (resumed && p.seed && resumed.seq < info.firstSeq - 1) resumed = null;
    const seed = resumed === null && info.firstSeq > 1 ? await seeded(info.firstSeq) : null;
    const start = resumed ?? seed;
    if (start) {
      state = start.state;
      seq = start.seq;
    }
    const from: BootInfo['from'] = resumed ? 'checkpoint' : seed ? 'snapshot' : 'zero';
    started = { info, from, checkpointSeq: seq, at: performance.now() };
    savedSeq = seq;
    replaying = true;
    const since = seq === 0 ? p.since?.() : undefined;
    hook('replay', () => p.replaying?.(state, Math.max(0, info.lastSeq - seq)));
    return {
      fromSeq: seq + 1,
      toSeq: info.lastSeq,
      ...(p.subjects !== undefined ? { subject: p.subjects } : {}),
      ...(since ? { since } : {}),
    };
  };

  const finish = async (tail?: SharedTail): Promise<BootInfo> => {
    if (started === null) throw new Error(`projection ${p.name}: finish before begin`);
    const { info, from, checkpointSeq, at } = started;
    const replayed = Math.max(0, info.lastSeq - checkpointSeq);
    // How long the history took (operators read a slow boot from it; the projections benchmark times it).
    const replayMs = Math.round((performance.now() - at) * 10) / 10;
    seq = Math.max(seq, info.lastSeq);
    hook('replay', () => p.replayed?.(state));
    replaying = false;
    save();
    try {
      return await followLive(tail, info, { from, checkpointSeq, replayed }, replayMs);
    } catch (error) {
      // A boot that fails part-way leaves nothing following: no handle will ever stop it.
      await stopSources();
      throw error;
    }
  };

  /** Finishing's live half: the tail, the watched keys, the settle; ready once they are. */
  const followLive = async (
    tail: SharedTail | undefined,
    info: StreamInfo,
    boot: BootInfo,
    replayMs: number,
  ): Promise<BootInfo> => {
    const { from, checkpointSeq, replayed } = boot;
    subscriptions.push(
      tail
        ? await tail.join(fold)
        : await bus.follow(
            p.stream,
            { fromSeq: info.lastSeq + 1, ...(p.subjects !== undefined ? { subject: p.subjects } : {}) },
            fold,
          ),
    );
    for (const w of p.watches ?? []) {
      const current = await w.bucket.get(w.key);
      if (current) foldKey(w, current);
      subscriptions.push(
        await w.bucket.watch(
          (entry) => {
            if (entry.operation === 'put') foldKey(w, entry);
          },
          { key: w.key, initial: false },
        ),
      );
    }
    if (p.settle) {
      await p.settle(state).catch((error: unknown) => {
        opts.logger?.error({ err: error, projection: p.name }, 'projection settle failed');
      });
      observers.changed(false);
    }
    opts.logger?.info(
      {
        projection: p.name,
        version: p.version,
        from,
        checkpoint_seq: checkpointSeq,
        replayed,
        replay_ms: replayMs,
        seq,
      },
      'projection ready',
    );
    return boot;
  };

  const stopSources = async (): Promise<void> => {
    const running = subscriptions;
    subscriptions = [];
    for (const s of running) await s.stop();
  };

  const member: StreamMember<S> = {
    projection: p,
    begin,
    fold,
    finish,
    running(first) {
      let boot = first;
      const untrack = trackPosition(bus, { name: p.name, stream: p.stream, seq: () => seq });
      return {
        name: p.name,
        state: () => state,
        seq: () => seq,
        get boot() {
          return boot;
        },
        ...observers.surface(() => !replaying),
        saveCheckpoint: save,
        async rebuild() {
          await stopSources();
          opts.checkpoints?.remove(p.name);
          boot = await bootAlone(bus, member, true);
        },
        async stop() {
          untrack();
          await stopSources();
          save();
          observers.clear();
        },
      };
    },
  };
  return member;
}

async function runBucket<S>(opts: RunnerOptions<S>, p: BucketProjection<S>): Promise<RunningProjection<S>> {
  let state: S = p.init();
  let seq = 0;
  let live = false;
  let watch: Subscription | null = null;
  const observers = new Observers(
    () => state,
    () => seq,
    p.name,
    opts.logger,
  );
  const fold = (entry: KvEntry): void => {
    try {
      p.apply(state, entry);
    } catch (error) {
      opts.logger?.error({ err: error, projection: p.name, key: entry.key }, 'projection skipped a record');
    }
    seq = Math.max(seq, entry.revision);
    observers.changed(live);
  };
  const start = async (): Promise<BootInfo> => {
    state = p.init();
    seq = 0;
    live = false;
    // Every current value is folded before the watch resolves (the bus's watch contract): no read per key.
    let replayed = 0;
    const onEntry = (entry: KvEntry): void => {
      if (!live) replayed += 1;
      fold(entry);
    };
    watch = await p.bucket.watch(onEntry, { initial: true, ...(p.key !== undefined ? { key: p.key } : {}) });
    live = true;
    opts.logger?.info({ projection: p.name, version: p.version, replayed, seq }, 'projection ready');
    return { from: 'zero', checkpointSeq: 0, replayed };
  };
  async function stopWatch(): Promise<void> {
    const running = watch;
    watch = null;
    await running?.stop();
  }
  let boot = await start();
  return {
    name: p.name,
    state: () => state,
    seq: () => seq,
    get boot() {
      return boot;
    },
    ...observers.surface(() => live),
    saveCheckpoint: () => undefined,
    async rebuild() {
      await stopWatch();
      boot = await start();
    },
    async stop() {
      await stopWatch();
      observers.clear();
    },
  };
}
