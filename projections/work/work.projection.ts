/**
 * The work read model: the work stream (SVC_WORK) folded by the one runner into the tracker's state
 * (`schema/work/state.ts`), from its first record on every node, so any node answers every `/work` read
 * and the writer decides against the same state; once the log is trimmed, from the newest snapshot that
 * reaches its first record (work.snapshots.ts). A record that does not decode is skipped.
 */
import type { Logger } from 'pino';
import { Streams, type Bus } from '../../bus/index.js';
import {
  emptyWorkState,
  foldHead,
  foldLogSize,
  foldRetention,
  foldWork,
  formatPosition,
  RetentionRecord,
  retentionSubjects,
  WorkRecord,
  type WorkState,
} from '../../schema/index.js';
import { runProjection, type Projection, type RunningProjection } from '../runner/runner.js';
import { openWorkSnapshots, workSnapshots, type WorkSnapshots } from './work.snapshots.js';

const decoder = new TextDecoder();

/** Decodes one stored record, or null when it is not a work record. */
export function decodeWorkRecord(data: Uint8Array): WorkRecord | null {
  return decode(data, WorkRecord);
}

function decode<T>(
  data: Uint8Array,
  schema: { safeParse(v: unknown): { success: true; data: T } | { success: false } },
): T | null {
  try {
    const parsed = schema.safeParse(JSON.parse(decoder.decode(data)));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Folds one stored message of the work stream: an item or file record, or a retention record. */
export function applyWorkMessage(
  state: WorkState,
  message: { seq: number; subject: string; data: Uint8Array; time: Date },
): void {
  const retention = state.retention;
  foldLogSize(retention, message.data.byteLength, message.time);
  if (message.subject.startsWith(retentionSubjects.prefix)) {
    const record = decode(message.data, RetentionRecord);
    foldHead(retention, message.seq, record?.kind === 'retention.node_acked');
    if (record)
      foldRetention(retention, record, message.seq, formatPosition(message.seq, retention.generation));
    state.seq = Math.max(state.seq, message.seq);
    return;
  }
  foldHead(retention, message.seq, false);
  const record = decodeWorkRecord(message.data);
  if (record) foldWork(state, record, message.seq);
  else state.seq = Math.max(state.seq, message.seq);
}

export const workProjection: Projection<WorkState> = {
  name: 'work',
  version: 2,
  stream: Streams.Work,
  init: emptyWorkState,
  apply: applyWorkMessage,
};

export interface WorkView {
  state(): WorkState;
  until(seq: number, timeoutMs: number): Promise<boolean>;
  /**
   * Why the state cannot be trusted, or null: the log was trimmed and no snapshot reaching its first
   * record could be read, so the fold lacks what was trimmed (reads and writes answer 503 `work_unavailable`).
   */
  unavailable(): string | null;
  /** The snapshots on the bus this node starts from after a trim, and the trim writes. */
  readonly snapshots: WorkSnapshots;
  readonly running: RunningProjection<WorkState>;
  stop(): Promise<void>;
}

/**
 * The fold with a watch on its sequence: the work stream loses records only to a trim, so a record past
 * the next one means this node was behind when records it had not applied were removed (an evicted or
 * stalled node). `onGap` is told; the caller stops trusting the state and starts it again from a snapshot.
 */
export function watchedApply(
  onGap: (applied: number, arrived: number) => void,
): (state: WorkState, message: Parameters<typeof applyWorkMessage>[1]) => void {
  return (state, message) => {
    if (state.seq > 0 && message.seq > state.seq + 1) onGap(state.seq, message.seq);
    applyWorkMessage(state, message);
  };
}

export async function followWork(opts: { bus: Bus; logger?: Logger }): Promise<WorkView> {
  const snapshots = workSnapshots(await openWorkSnapshots(opts.bus), opts.logger);
  let unavailable: string | null = null;
  let running: RunningProjection<WorkState> | null = null;
  let reseeding = false;
  const reseed = (applied: number, arrived: number): void => {
    if (reseeding || unavailable !== null) return;
    reseeding = true;
    unavailable = `records ${applied + 1} to ${arrived - 1} were trimmed before this node applied them; it starts again from a snapshot`;
    opts.logger?.error({ applied, arrived }, `work tracker unavailable: ${unavailable}`);
    // Not from inside the fold: the rebuild stops the read that is delivering this record.
    setImmediate(() => {
      void (async () => {
        try {
          await running?.rebuild();
        } catch (error) {
          opts.logger?.error({ err: error }, 'work tracker: starting again from a snapshot failed');
        } finally {
          reseeding = false;
        }
      })();
    });
  };
  const projection: Projection<WorkState> = {
    ...workProjection,
    apply: watchedApply(reseed),
    // Consulted only when the log no longer starts at 1 (ops/work-tracker.md "Retention").
    async seed(firstSeq) {
      const found = await snapshots.read(firstSeq - 1);
      unavailable = found
        ? null
        : `the work log was trimmed below ${firstSeq} and no snapshot reaching it could be read`;
      if (unavailable)
        opts.logger?.error({ first_seq: firstSeq }, `work tracker unavailable: ${unavailable}`);
      else opts.logger?.info({ seq: found?.manifest.seq, first_seq: firstSeq }, 'work state from a snapshot');
      return found ? { state: found.state, seq: found.manifest.seq } : null;
    },
  };
  const started = await runProjection({
    bus: opts.bus,
    projection,
    ...(opts.logger ? { logger: opts.logger } : {}),
  });
  running = started;
  return {
    state: () => started.state(),
    until: (seq, timeoutMs) => started.until(seq, timeoutMs),
    unavailable: () => unavailable,
    snapshots,
    running: started,
    stop: () => started.stop(),
  };
}
