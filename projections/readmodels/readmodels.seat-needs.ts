/**
 * `readmodels.seat_needs`: every seat's open needs as the seats' logs (stream `SVC_SEATS`) keep them, for the
 * agent rows: the log keeps its records without age, so a question stays known after the event that
 * announced it has left the 30-day history. It folds the log records and the seats' snapshots: a seat's
 * log removes the records an older snapshot covers (actors/seat/seat.log.ts), so a reader starting from
 * zero, or one that fell behind a removal, takes the seat's state from the snapshot, whose fold through its
 * `seq` is the seat's own. A snapshot through a record this fold has already passed adds nothing. Per seat,
 * a record or snapshot of a lease epoch below the highest this fold has read is a superseded holder's late
 * write and is ignored, as the seat's own start ignores it (schema/lease-epoch.ts); a holder's epoch mark
 * (`svc.seats.<handle>.held`, written before it reads the log) raises the seat's epoch and folds nothing,
 * so a late record stored after it is ignored here as by the holder, which read before it landed. (A node of
 * a release before the marks reads their subject as no part of a log and passes them over.) It checkpoints its
 * small state — the open needs of each seat that has any, at most `NEEDS_KEPT_PER_SEAT`
 * each, the last log sequence folded and the highest lease epoch read for every seat — so a boot reads the checkpoint and the records
 * after it, not every question a seat ever asked.
 */
import { z } from 'zod';
import { seatLogPart, Streams, Subjects } from '../../bus/index.js';
import {
  foldNeeds,
  needsEventOf,
  nextEpochMark,
  SeatLogRecord,
  SeatNeed,
  SeatSnapshot,
} from '../../schema/index.js';
import type { Projection } from '../runner/runner.js';

export interface SeatNeedsState {
  /** Each seat's open needs; a seat with none has no entry. */
  readonly seats: Map<string, readonly SeatNeed[]>;
  /** Each seat's last log sequence folded (a record's, or the one a snapshot folds through). */
  readonly through: Map<string, number>;
  /** Each seat's highest lease epoch read (seats whose records carry one). */
  readonly epochs: Map<string, number>;
  /** False while a boot or rebuild replays: what it folds is told once, at its end. */
  live: boolean;
}

export interface SeatNeedsOptions {
  /** A seat's open needs: each seat that has any once the boot has read, then every change. */
  readonly onNeeds: (handle: string, needs: readonly SeatNeed[]) => void;
  /** An unreadable record or snapshot, or a superseded holder's late one (skipped, as the seat's own start does). */
  readonly onTrouble?: (seq: number, error: unknown) => void;
}

const Saved = z.object({
  seats: z.array(z.object({ handle: z.string(), needs: z.array(SeatNeed) })),
  through: z.array(z.object({ handle: z.string(), seq: z.number().int() })),
  epochs: z.array(z.object({ handle: z.string(), epoch: z.number().int() })),
});

const decoder = new TextDecoder();

export function seatNeedsProjection(opts: SeatNeedsOptions): Projection<SeatNeedsState> {
  const set = (
    state: SeatNeedsState,
    handle: string,
    before: readonly SeatNeed[],
    after: readonly SeatNeed[],
  ) => {
    if (after === before) return;
    if (after.length > 0) state.seats.set(handle, after);
    else state.seats.delete(handle);
    if (state.live) opts.onNeeds(handle, after);
  };
  return {
    name: 'readmodels.seat_needs',
    // 2: snapshots folded and `through` kept, since logs remove the records their snapshots cover.
    // 3: a superseded lease holder's late records ignored, each seat's highest epoch kept.
    version: 3,
    stream: Streams.Seats,
    subjects: Subjects.seatLogs,
    init: () => ({ seats: new Map(), through: new Map(), epochs: new Map(), live: false }),
    apply: (state, message) => {
      const at = seatLogPart(message.subject);
      if (at === null) return;
      const { handle } = at;
      const before = state.seats.get(handle) ?? [];
      const mark = state.epochs.get(handle) ?? 0;
      const epoch = nextEpochMark(mark, message.headers);
      if (epoch === null) {
        opts.onTrouble?.(message.seq, new Error(`written under a lease epoch below ${mark}: ignored`));
        return;
      }
      if (at.part === 'held') {
        if (epoch > 0) state.epochs.set(handle, epoch);
        return;
      }
      try {
        const body: unknown = JSON.parse(decoder.decode(message.data));
        if (at.part === 'log') {
          const after = foldNeeds(before, needsEventOf(SeatLogRecord.parse(body)));
          state.through.set(handle, message.seq);
          if (epoch > 0) state.epochs.set(handle, epoch);
          set(state, handle, before, after);
          return;
        }
        const snapshot = SeatSnapshot.parse(body);
        // Read, so its epoch counts even when it adds nothing (as at the seat's own start).
        if (epoch > 0) state.epochs.set(handle, epoch);
        if ((state.through.get(handle) ?? 0) >= snapshot.seq) return;
        state.through.set(handle, snapshot.seq);
        const same =
          snapshot.needs.length === before.length && snapshot.needs.every((n, i) => n.id === before[i]?.id);
        set(state, handle, before, same ? before : snapshot.needs);
      } catch (error) {
        opts.onTrouble?.(message.seq, error);
      }
    },
    replayed: (state) => {
      state.live = true;
      for (const [handle, needs] of state.seats) opts.onNeeds(handle, needs);
    },
    checkpoint: {
      save: (state) => ({
        seats: [...state.seats].map(([handle, needs]) => ({ handle, needs })),
        through: [...state.through].map(([handle, seq]) => ({ handle, seq })),
        epochs: [...state.epochs].map(([handle, epoch]) => ({ handle, epoch })),
      }),
      load: (saved) => {
        const parsed = Saved.safeParse(saved);
        if (!parsed.success) return null;
        const seats = new Map<string, readonly SeatNeed[]>();
        for (const { handle, needs } of parsed.data.seats) if (needs.length > 0) seats.set(handle, needs);
        const through = new Map(parsed.data.through.map(({ handle, seq }) => [handle, seq]));
        const epochs = new Map(parsed.data.epochs.map(({ handle, epoch }) => [handle, epoch]));
        return { seats, through, epochs, live: false };
      },
    },
  };
}
