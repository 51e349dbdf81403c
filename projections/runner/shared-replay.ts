/**
 * Boots several projections with one ordered read per stream: the projections of a stream that read all
 * of it (no subject filter) are fed from one replay, each record folded into every projection that does not
 * hold it yet (past its checkpoint, and at or after its seeding bound when it starts from zero). A boot
 * that replayed a stream once per read model reads it once. A projection whose checkpoint lies far behind
 * the rest of its stream's group catches up alone first, so the others do not wait through its history.
 */
import type { Bus, StoredMessage } from '../../bus/index.js';
import type { AnyProjection, BootInfo, Projection, RunnerOptions, RunningProjection } from './projection.js';
import { isBucketProjection } from './projection.js';
import { replayInWindows } from './replay-windows.js';
import { runProjection, streamMember, type ReplayRange, type StreamMember } from './runner.js';
import { SharedTail } from './shared-tail.js';

/** Records a projection may lag behind its group before it catches up alone first. */
const CATCH_UP_ALONE = 50_000;

export interface SharedBootOptions extends Omit<RunnerOptions<unknown>, 'projection' | 'onLive'> {
  readonly bus: Bus;
  readonly projections: ReadonlyArray<AnyProjection<unknown>>;
  /** Called once per record the boot read from a stream (what the shared read saves, measured). */
  readonly onRead?: (message: StoredMessage) => void;
}

interface Joined {
  readonly member: StreamMember<unknown>;
  /** The first sequence it still needs (its seeding bound resolved to a sequence). */
  fromSeq: number;
}

/** Starts every projection; resolves, in the order given, once each replayed and follows its tail. */
export async function runProjectionsShared(opts: SharedBootOptions): Promise<RunningProjection<unknown>[]> {
  const { projections, onRead, ...common } = opts;
  const byStream = new Map<string, Projection<unknown>[]>();
  const alone: AnyProjection<unknown>[] = [];
  for (const p of projections) {
    // A projection that reads part of the stream, or part of its messages, reads it on its own.
    if (isBucketProjection(p) || p.subjects !== undefined || p.skipBodies !== undefined) alone.push(p);
    else byStream.set(p.stream, [...(byStream.get(p.stream) ?? []), p]);
  }
  const started = new Map<string, RunningProjection<unknown>>();
  try {
    for (const [stream, group] of byStream) {
      const running = await bootGroup(opts.bus, stream, group, common, onRead);
      for (const r of running) started.set(r.name, r);
    }
    for (const p of alone) started.set(p.name, await runProjection({ ...common, projection: p }));
  } catch (error) {
    // Nobody is handed what already runs: stopped here, or its follows and timers would outlive the boot.
    await stopAll([...started.values()]);
    throw error;
  }
  return projections.flatMap((p) => started.get(p.name) ?? []);
}

/** Stops each of `running`, whatever the others do (a failed boot's clean-up must not stop half-way). */
async function stopAll(running: readonly RunningProjection<unknown>[]): Promise<void> {
  await Promise.allSettled(running.map((r) => r.stop()));
}

async function bootGroup(
  bus: Bus,
  stream: string,
  group: Projection<unknown>[],
  common: Omit<SharedBootOptions, 'projections' | 'onRead'>,
  onRead: ((message: StoredMessage) => void) | undefined,
): Promise<RunningProjection<unknown>[]> {
  const info = await bus.streamInfo(stream);
  const read = async function* (range: ReplayRange, windowBytes: number | undefined) {
    const history =
      windowBytes !== undefined
        ? replayInWindows(
            bus,
            stream,
            { ...range, fromSeq: Math.max(range.fromSeq, info.firstSeq) },
            windowBytes,
          )
        : bus.replay(stream, range);
    for await (const message of history) {
      onRead?.(message);
      yield message;
    }
  };
  // A seeding bound becomes the sequence of the first record at or after it (one record read), so every
  // member's start is a sequence and one read from the earliest serves them all.
  const firstSince = async (since: Date): Promise<number> => {
    for await (const message of read({ fromSeq: 1, toSeq: info.lastSeq, since }, undefined))
      return message.seq;
    return info.lastSeq + 1;
  };
  const members: Joined[] = [];
  for (const p of group) {
    const member = streamMember({ ...common, projection: p }, p);
    const range = await member.begin(info, false);
    const fromSeq = range.since !== undefined ? await firstSince(range.since) : range.fromSeq;
    members.push({ member, fromSeq });
  }
  const windowOf = (list: Joined[]): number | undefined => {
    const sizes = list.flatMap((j) => j.member.projection.replayWindowBytes ?? []);
    return sizes.length > 0 ? Math.min(...sizes) : undefined;
  };
  const startOf = (list: Joined[]): number => Math.min(info.lastSeq + 1, ...list.map((j) => j.fromSeq));

  // A start far behind every other member's catches up alone to where the others start.
  for (const j of members) {
    const next = startOf(members.filter((o) => o !== j));
    if (members.length < 2 || next - j.fromSeq <= CATCH_UP_ALONE) continue;
    for await (const message of read({ fromSeq: j.fromSeq, toSeq: next - 1 }, windowOf([j])))
      j.member.fold(message);
    j.fromSeq = next;
  }

  // One read for all from the earliest start; `fold` skips what a member holds, and a member takes
  // nothing before its own start.
  for await (const message of read({ fromSeq: startOf(members), toSeq: info.lastSeq }, windowOf(members))) {
    for (const j of members) if (message.seq >= j.fromSeq) j.member.fold(message);
  }
  // One follow from just after the history read feeds every member (shared-tail.ts).
  const tail = new SharedTail(bus, stream, info.lastSeq + 1, (error, message) =>
    common.logger?.error({ err: error, stream, seq: message.seq }, 'a projection failed on a live message'),
  );
  const out: RunningProjection<unknown>[] = [];
  try {
    for (const j of members) {
      const boot: BootInfo = await j.member.finish(tail);
      out.push(j.member.running(boot));
    }
  } catch (error) {
    // The members already on the tail leave it (the last one out ends the follow).
    await stopAll(out);
    throw error;
  } finally {
    tail.seal();
  }
  return out;
}
