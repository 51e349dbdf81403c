/**
 * The work read model: the work stream (SVC_WORK) folded by the one runner into the tracker's state
 * (`schema/work/state.ts`), from its first record on every node, so any node answers every `/work` read
 * and the writer decides against the same state. A record that does not decode is skipped.
 */
import type { Logger } from 'pino';
import { Streams, type Bus } from '../../bus/index.js';
import { emptyWorkState, foldWork, WorkRecord, type WorkState } from '../../schema/index.js';
import { runProjection, type Projection, type RunningProjection } from '../runner/runner.js';

const decoder = new TextDecoder();

/** Decodes one stored record, or null when it is not a work record. */
export function decodeWorkRecord(data: Uint8Array): WorkRecord | null {
  try {
    const parsed = WorkRecord.safeParse(JSON.parse(decoder.decode(data)));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export const workProjection: Projection<WorkState> = {
  name: 'work',
  version: 1,
  stream: Streams.Work,
  init: emptyWorkState,
  apply: (state, message) => {
    const record = decodeWorkRecord(message.data);
    if (record) foldWork(state, record, message.seq);
    else state.seq = Math.max(state.seq, message.seq);
  },
};

export interface WorkView {
  state(): WorkState;
  until(seq: number, timeoutMs: number): Promise<boolean>;
  readonly running: RunningProjection<WorkState>;
  stop(): Promise<void>;
}

export async function followWork(opts: { bus: Bus; logger?: Logger }): Promise<WorkView> {
  const running = await runProjection({
    bus: opts.bus,
    projection: workProjection,
    ...(opts.logger ? { logger: opts.logger } : {}),
  });
  return {
    state: () => running.state(),
    until: (seq, timeoutMs) => running.until(seq, timeoutMs),
    running,
    stop: () => running.stop(),
  };
}
