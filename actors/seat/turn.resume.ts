/**
 * The seat host's side of the turn journal: when a wake is taken, its turn's journal is read (null for a
 * fresh turn) and a writer opened behind the lease fence; each phase then gets its view of the record.
 * (The needs a turn's `ask_human` calls record live in the seat's own log, seat.log.ts.)
 */
import type { InboxMessage } from '../../schema/index.js';
import type { DeadlineBreach, PhaseName, SeatEvent } from './seat.types.js';
import { TurnCalls } from './turn.calls.js';
import {
  journalWriter,
  readJournal,
  type JournalWriter,
  type JournalWriterOptions,
  type OpenPhase,
  type PhaseJournal,
  type TurnJournal,
} from './turn.journal.js';

export interface OpenedTurn {
  /** What an earlier run recorded; null when the turn starts fresh. */
  readonly prior: TurnJournal | null;
  readonly writer: JournalWriter;
  /** The turn's tool calls as its phases run or replay them (a per-turn cap counts them). */
  readonly calls: TurnCalls;
  /** A phase's view of the journal; asking for it marks the phase as run (or replayed) by this run. */
  phase(phase: PhaseName, iteration: number): PhaseJournal;
  /**
   * The phases an earlier run started and never ended that this run has not asked for: a turn ending now
   * closes them (turn.close.ts), since no run of theirs will.
   */
  unclosed(): readonly OpenPhase[];
  /**
   * Every phase an earlier run started that this run has not asked for, in the order they started, with the
   * tokens its end recorded (null while it is open): what a turn ending now counts without running them.
   */
  unasked(): readonly UnaskedPhase[];
}

export interface UnaskedPhase {
  readonly phase: PhaseName;
  readonly iteration: number;
  readonly tokens: number | null;
}

/**
 * Opens the turn's journal for writing after reading back what an earlier run of the turn recorded. The
 * journal is marked with the holder's epoch before it is read (`JournalWriter.mark`), a fresh turn's too:
 * its first `turn_started` is then judged by the reading rule like every other record.
 */
export async function openTurn(opts: JournalWriterOptions): Promise<OpenedTurn> {
  const writer = journalWriter(opts);
  const prior = await readJournal(opts.bus, opts.handle, opts.turnId, writer);
  const asked = new Set<string>();
  const key = (phase: PhaseName, iteration: number): string => `${phase}.${iteration}`;
  return {
    prior,
    writer,
    calls: new TurnCalls(),
    phase: (phase, iteration) => {
      asked.add(key(phase, iteration));
      const unfinished = prior?.unsettledUnfinished;
      return {
        prior: prior?.phase(phase, iteration) ?? null,
        unsettledSpend: prior?.unsettledSpend ?? null,
        unsettledUnfinished:
          unfinished?.phase === phase && unfinished.iteration === iteration ? unfinished.spend : [],
        write: (entry) => writer.write(entry),
      };
    },
    unclosed: () => (prior?.open() ?? []).filter((p) => !asked.has(key(p.phase, p.iteration))),
    unasked: () =>
      (prior?.phasesStarted() ?? [])
        .filter((p) => !asked.has(key(p.phase, p.iteration)))
        .map(({ phase, iteration, record }) => ({
          phase,
          iteration,
          tokens: record.completed?.tokens ?? record.failed?.tokens ?? null,
        })),
  };
}

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
