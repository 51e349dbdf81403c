/**
 * `readmodels.seat_needs`: every seat's open needs as the seats' logs (stream `SVC_SEATS`) keep them, for the
 * agent rows: the log keeps its records without age, so a question stays known after the event that
 * announced it has left the 30-day history. It folds the log records only (`svc.seats.*.log`; a seat's
 * snapshots serve that seat's own start) and checkpoints its small state — the open needs of each seat that
 * has any, at most `NEEDS_KEPT_PER_SEAT` each — so a boot reads the checkpoint and the records after it,
 * not every question a seat ever asked.
 */
import { z } from 'zod';
import { seatOfLog, Streams, Subjects } from '../../bus/index.js';
import { foldNeeds, needsEventOf, SeatLogRecord, SeatNeed } from '../../schema/index.js';
import type { Projection } from '../runner/runner.js';

export interface SeatNeedsState {
  /** Each seat's open needs; a seat with none has no entry. */
  readonly seats: Map<string, readonly SeatNeed[]>;
  /** False while a boot or rebuild replays: what it folds is told once, at its end. */
  live: boolean;
}

export interface SeatNeedsOptions {
  /** A seat's open needs: each seat that has any once the boot has read, then every change. */
  readonly onNeeds: (handle: string, needs: readonly SeatNeed[]) => void;
  /** An unreadable record (skipped: the seat's own start skips it too, so its state misses what it said). */
  readonly onTrouble?: (seq: number, error: unknown) => void;
}

const Saved = z.object({ seats: z.array(z.object({ handle: z.string(), needs: z.array(SeatNeed) })) });

const decoder = new TextDecoder();

export function seatNeedsProjection(opts: SeatNeedsOptions): Projection<SeatNeedsState> {
  return {
    name: 'readmodels.seat_needs',
    version: 1,
    stream: Streams.Seats,
    subjects: Subjects.seatLogRecords,
    init: () => ({ seats: new Map(), live: false }),
    apply: (state, message) => {
      const handle = seatOfLog(message.subject);
      if (handle === null) return;
      let record: SeatLogRecord;
      try {
        record = SeatLogRecord.parse(JSON.parse(decoder.decode(message.data)));
      } catch (error) {
        opts.onTrouble?.(message.seq, error);
        return;
      }
      const before = state.seats.get(handle) ?? [];
      const after = foldNeeds(before, needsEventOf(record));
      if (after === before) return;
      if (after.length > 0) state.seats.set(handle, after);
      else state.seats.delete(handle);
      if (state.live) opts.onNeeds(handle, after);
    },
    replayed: (state) => {
      state.live = true;
      for (const [handle, needs] of state.seats) opts.onNeeds(handle, needs);
    },
    checkpoint: {
      save: (state) => ({ seats: [...state.seats].map(([handle, needs]) => ({ handle, needs })) }),
      load: (saved) => {
        const parsed = Saved.safeParse(saved);
        if (!parsed.success) return null;
        const seats = new Map<string, readonly SeatNeed[]>();
        for (const { handle, needs } of parsed.data.seats) if (needs.length > 0) seats.set(handle, needs);
        return { seats, live: false };
      },
    },
  };
}
