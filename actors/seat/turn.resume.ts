/**
 * The seat host's side of the turn journal: when a wake is taken, its turn's journal is read (null for a
 * fresh turn) and a writer opened behind the lease fence; each phase then gets its view of the record.
 * The needs a turn's `ask_human` calls recorded travel in the journal too, so a turn resumed on another
 * node (or after a restart, which empties the in-memory needs board) still carries them to completion.
 */
import type { Bus } from '../../bus/index.js';
import type { NeedsBoard } from '../memory/index.js';
import type { Need } from '../toolservers/index.js';
import type { InboxMessage } from '../../schema/index.js';
import type { DeadlineBreach, PhaseName, SeatEvent } from './seat.types.js';
import {
  journalWriter,
  readJournal,
  type JournalWriter,
  type PhaseJournal,
  type TurnJournal,
} from './turn.journal.js';

export interface OpenedTurn {
  /** What an earlier run recorded; null when the turn starts fresh. */
  readonly prior: TurnJournal | null;
  readonly writer: JournalWriter;
  phase(phase: PhaseName, iteration: number): PhaseJournal;
}

/** The needs of `turnId` on the board, leaving the board as it was. */
function peekNeeds(board: NeedsBoard, seat: string, turnId: string): Need[] {
  const all = board.take(seat, turnId);
  for (const need of all) void board.recordNeed(seat, need);
  return all.filter((n) => n.turn_id === turnId);
}

export async function openTurn(opts: {
  readonly bus: Bus;
  readonly handle: string;
  readonly turnId: string;
  readonly node: string;
  readonly fence: () => void;
  readonly now: () => Date;
  readonly needs?: NeedsBoard;
  readonly headers?: Record<string, string>;
}): Promise<OpenedTurn> {
  const prior = await readJournal(opts.bus, opts.handle, opts.turnId);
  const board = opts.needs;
  // A resumed turn's needs go back on the board (once) for its completion to take.
  if (prior && board) {
    const have = new Set(peekNeeds(board, opts.handle, opts.turnId).map((n) => n.id));
    for (const need of prior.needs) if (!have.has(need.id)) await board.recordNeed(opts.handle, need);
  }
  const writer = journalWriter(opts);
  return {
    prior,
    writer,
    phase: (phase, iteration) => ({
      prior: prior?.phase(phase, iteration) ?? null,
      unsettledSpend: prior?.unsettledSpend ?? null,
      write: (entry) => writer.write(entry),
      needs: () => (board ? peekNeeds(board, opts.handle, opts.turnId) : []),
    }),
  };
}

/** Needs de-duplicated by id (a call retried after a cut records the same need again). */
export const distinctNeeds = (needs: readonly Need[]): Need[] => [
  ...new Map(needs.map((n) => [n.id, n])).values(),
];

/**
 * The `seat.wake` of an inbox message: a resumed turn keeps the start and limits its journal recorded;
 * `expired` when a scheduled wake's deadline passed before it was taken.
 */
export function wakeEvent(
  message: InboxMessage,
  turnId: string,
  resumed: TurnJournal['started'],
  expired: DeadlineBreach | undefined,
  now: () => Date,
): SeatEvent {
  return {
    type: 'seat.wake',
    wake: {
      id: message.id,
      kind: message.kind,
      source: message.source,
      summary: message.summary,
      trace_id: message.trace_id || turnId.replaceAll('-', ''),
      payload: message.payload,
    },
    turn_id: turnId,
    at: resumed?.at ?? now().toISOString(),
    ...(resumed ? { limits: resumed.limits } : {}),
    ...(expired ? { expired } : {}),
  };
}
