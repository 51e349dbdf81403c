/**
 * A turn's journal (stream `SVC_TURNS`, subject `svc.turns.<handle>.<turn id>`): the turn's progress,
 * appended as it happens — the turn and each phase started, each model answer with its spend record (and
 * the spend of each answer that began and failed, before that is stored), each tool call before it runs
 * and its result after, each phase's outcome, and a cut for shutdown.
 * A wake whose turn has a journal resumes from it: completed phases, model answers and tool results are
 * replayed, not asked again (ops/turn-engine.md "Resuming a cut turn"). Each record's message id is
 * derived from (turn, phase, iteration, round, call), so a record written twice is stored once.
 */
import { Streams, Subjects, type Bus, type PubAck, type StoredMessage } from '../../bus/index.js';
import { leaseEpochOf, nextEpochMark, type SpendRecord } from '../../schema/index.js';
import type { PhaseName } from './seat.types.js';
import { publishStep, type EpochMark, type StepHolder } from './step.publish.js';
import { JournalRecord, type JournalEntry, type Of } from './turn.journal.records.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Where a tool call sits in its phase: the model's call ids may repeat across rounds, positions do not. */
export const callKey = (round: number, index: number): string => `${round}.${index}`;
const phaseKey = (phase: PhaseName, iteration: number): string => `${phase}.${iteration}`;

/** What an earlier run of one phase recorded. */
export interface PhaseRecord {
  readonly started: Of<'phase_started'> | null;
  readonly rounds: ReadonlyMap<number, Of<'round'>>;
  readonly calls: ReadonlyMap<
    string,
    { started: Of<'tool_started'> | null; result: Of<'tool_result'> | null }
  >;
  readonly completed: Of<'phase_completed'> | null;
  readonly failed: Of<'phase_failed'> | null;
  /** The spend of answers that began and failed, from `unfinished` records (a round's own are on the round). */
  readonly unfinished: readonly SpendRecord[];
}

/** A turn's journal, read back. */
export interface TurnJournal {
  readonly started: Of<'turn_started'> | null;
  phase(phase: PhaseName, iteration: number): PhaseRecord | null;
  /**
   * The spend id of the newest round when nothing written after its spend followed it (its spend may not
   * have been written). A result of an earlier round's retriable tool may land after the round (its write
   * is retried while the round is recorded): such a record says nothing of the round's spend.
   */
  readonly unsettledSpend: string | null;
  /**
   * The newest record when it is an `unfinished` one (answers that failed, their spend journaled before it
   * was stored) and nothing written after it followed (by the rule of `unsettledSpend`): its spend may not
   * have been stored.
   */
  readonly unsettledUnfinished: Of<'unfinished'> | null;
  /**
   * The spend records of one phase run that may not have been stored: the unsettled round's (with the
   * answers it fell back from) or the unsettled `unfinished` record's, when it is that phase's; else none.
   * What closes the phase without running it again stores them (turn.close.ts).
   */
  unsettled(phase: PhaseName, iteration: number): readonly SpendRecord[];
  /** The spend records that may not have been stored, of whichever phase run: what a removed seat's sweep stores. */
  readonly unsettledRecords: readonly SpendRecord[];
  readonly cuts: readonly Of<'cut'>[];
  readonly records: number;
  /** Every phase on record as started, ended or not, in the order they started. */
  phasesStarted(): readonly StartedPhase[];
  /** The phases started and neither completed nor failed (cut while they ran), in the order they started. */
  open(): readonly OpenPhase[];
}

/** A phase the journal shows started; an open one never ended. */
export type OpenPhase = StartedPhase;
export interface StartedPhase {
  readonly phase: PhaseName;
  readonly iteration: number;
  readonly record: PhaseRecord & { readonly started: Of<'phase_started'> };
}

type MutablePhase = {
  started: Of<'phase_started'> | null;
  rounds: Map<number, Of<'round'>>;
  calls: Map<string, { started: Of<'tool_started'> | null; result: Of<'tool_result'> | null }>;
  completed: Of<'phase_completed'> | null;
  failed: Of<'phase_failed'> | null;
  unfinished: SpendRecord[];
};

/** Folds records (in stream order) into the journal; unreadable ones are skipped. */
export function foldJournal(records: readonly JournalRecord[]): TurnJournal {
  let started: Of<'turn_started'> | null = null;
  const phases = new Map<string, MutablePhase>();
  const cuts: Of<'cut'>[] = [];
  /** The newest record that carries spend (a round, or answers that failed), and whether one followed it. */
  let newest: Of<'round'> | Of<'unfinished'> | null = null;
  let settled = false;
  const of = (phase: PhaseName, iteration: number): MutablePhase => {
    const key = phaseKey(phase, iteration);
    let p = phases.get(key);
    if (!p) {
      p = {
        started: null,
        rounds: new Map(),
        calls: new Map(),
        completed: null,
        failed: null,
        unfinished: [],
      };
      phases.set(key, p);
    }
    return p;
  };
  for (const r of records) {
    if (r.kind === 'round' || r.kind === 'unfinished') [newest, settled] = [r, false];
    // A cut is written by the seat host beside the running phase, not after the phase stored its spend.
    else if (newest && r.kind !== 'cut' && !earlierCall(r, newest)) settled = true;
    switch (r.kind) {
      case 'turn_started':
        started ??= r;
        break;
      case 'phase_started':
        of(r.phase, r.iteration).started ??= r;
        break;
      case 'round':
        if (!of(r.phase, r.iteration).rounds.has(r.round)) of(r.phase, r.iteration).rounds.set(r.round, r);
        break;
      case 'tool_started':
      case 'tool_result': {
        const calls = of(r.phase, r.iteration).calls;
        const key = callKey(r.round, r.index);
        const call = calls.get(key) ?? { started: null, result: null };
        if (r.kind === 'tool_started') call.started ??= r;
        else call.result ??= r;
        calls.set(key, call);
        break;
      }
      case 'unfinished': {
        // A record stored twice (a write retried) is one call: kept once per spend id.
        const held = of(r.phase, r.iteration).unfinished;
        for (const spend of r.spend) if (!held.some((h) => h.id === spend.id)) held.push(spend);
        break;
      }
      case 'phase_completed':
        of(r.phase, r.iteration).completed ??= r;
        break;
      case 'phase_failed':
        of(r.phase, r.iteration).failed ??= r;
        break;
      case 'cut':
        cuts.push(r);
        break;
    }
  }
  const unsettledRecords: readonly SpendRecord[] =
    !newest || settled
      ? []
      : newest.kind === 'round'
        ? [newest.spend, ...(newest.unfinished ?? [])]
        : newest.spend;
  const startedPhases = (): StartedPhase[] =>
    [...phases.values()].flatMap((p) =>
      p.started
        ? [{ phase: p.started.phase, iteration: p.started.iteration, record: { ...p, started: p.started } }]
        : [],
    );
  return {
    started,
    phase: (phase, iteration) => phases.get(phaseKey(phase, iteration)) ?? null,
    unsettledSpend: newest?.kind === 'round' && !settled ? newest.spend.id : null,
    unsettledUnfinished: newest?.kind === 'unfinished' && !settled ? newest : null,
    unsettled: (phase, iteration) =>
      newest?.phase === phase && newest.iteration === iteration ? unsettledRecords : [],
    unsettledRecords,
    cuts,
    records: records.length,
    phasesStarted: startedPhases,
    open: () => startedPhases().filter((p) => !p.record.completed && !p.record.failed),
  };
}

/** A tool record of a round before `round` in the same phase run: it may be written after `round`. */
function earlierCall(r: JournalRecord, round: Of<'round'> | Of<'unfinished'>): boolean {
  return (
    (r.kind === 'tool_started' || r.kind === 'tool_result') &&
    r.phase === round.phase &&
    r.iteration === round.iteration &&
    r.round < round.round
  );
}

/** The message id of a record: one per (turn, what it records), so a repeat is stored once. */
function msgIdOf(turnId: string, r: JournalEntry): string {
  switch (r.kind) {
    case 'turn_started':
      return `${turnId}:turn`;
    case 'cut':
      return `${turnId}:cut:${r.reason}:${Date.now()}`;
    case 'round':
      return `${turnId}:${r.phase}.${r.iteration}:round:${r.round}`;
    // A round asked again after a restart may fail again: each failure's record is its own.
    case 'unfinished':
      return `${turnId}:${r.phase}.${r.iteration}:unfinished:${r.round}:${r.spend[0]?.id ?? ''}`;
    case 'tool_started':
    case 'tool_result':
      return `${turnId}:${r.phase}.${r.iteration}:${r.kind}:${callKey(r.round, r.index)}`;
    default:
      return `${turnId}:${r.phase}.${r.iteration}:${r.kind}`;
  }
}

/**
 * Reads a turn's journal; null when the turn has none to resume from (a fresh wake: no record, only epoch
 * marks, or only records ignored by their epoch). A record of a lease epoch below the highest read before
 * it is a superseded holder's late write (schema/lease-epoch.ts): it is ignored, so the resumed turn stands
 * on what the current holder recorded, and the step it said is done again. The spend it paid for is kept
 * elsewhere (the spend records are never dropped). `holder`, when given, marks first: its epoch mark
 * (`JournalWriter.mark`), fresh turn or not, so a late record that lands after this read — a superseded
 * holder's `turn_started` of the same turn included — is below a mark for every reader. Without a mark, one
 * cheap lookup answers a fresh turn; with a mark this call stored, so does finding it the subject's oldest
 * message (only a lower epoch's late record can follow it yet).
 */
export async function readJournal(
  bus: Bus,
  handle: string,
  turnId: string,
  holder?: Pick<JournalWriter, 'mark' | 'saw'>,
): Promise<TurnJournal | null> {
  const subject = Subjects.turnJournal(handle, turnId);
  const mark = (await holder?.mark()) ?? null;
  if (mark === null) {
    if ((await bus.lastMessage(Streams.Turns, subject)) === null) return null;
  } else if (!mark.duplicate && (await bus.nextMessage(Streams.Turns, subject, 1))?.seq === mark.seq) {
    return null;
  }
  const records: JournalRecord[] = [];
  const read = journalReader((seen) => holder?.saw(seen));
  for await (const msg of bus.replay(Streams.Turns, { subject })) {
    const record = read(msg);
    if (record) records.push(record);
  }
  return records.length === 0 ? null : foldJournal(records);
}

/**
 * Reads one journal's messages in order: the record each holds, or null for one ignored — an epoch mark
 * (no record, its header read), a superseded holder's late record, an unreadable one (the turn then redoes
 * what it said, as a fresh run would). `saw` hears each higher epoch met.
 */
export function journalReader(
  saw?: (seen: { seq: number; epoch: number }) => void,
): (msg: Pick<StoredMessage, 'seq' | 'headers' | 'data'>) => JournalRecord | null {
  let at = 0;
  return (msg) => {
    const next = nextEpochMark(at, msg.headers);
    if (next === null) return null;
    if (next > at) saw?.({ seq: msg.seq, epoch: next });
    at = next;
    try {
      const parsed = JournalRecord.safeParse(JSON.parse(decoder.decode(msg.data)));
      return parsed.success ? parsed.data : null;
    } catch {
      return null;
    }
  };
}

/** Appends records to one turn's journal, each after `fence()` (a superseded holder writes nothing). */
export interface JournalWriter {
  write(entry: JournalEntry): Promise<void>;
  /**
   * Stores the holder's epoch mark (nothing, and null, without an epoch): a body of kind `held` that is no
   * `JournalRecord`, so `foldJournal` and a reader of any release skip it while its header raises the
   * epoch every later record is judged by. Once per epoch: a retried open stores it once. Once marked, a
   * write answered `duplicate` by a lower epoch's record stored after the mark is written again
   * (step.publish.ts).
   */
  mark(): Promise<PubAck | null>;
  /**
   * A record the read found raising the epoch (an earlier holder's mark, say): a lower epoch's record
   * stored after it is ignored by readers too, so a write it made a duplicate is written again.
   */
  saw(mark: EpochMark): void;
}

/** Which turn's journal a writer appends to, and how each record is fenced, stamped and headed. */
export interface JournalWriterOptions {
  readonly bus: Bus;
  readonly handle: string;
  readonly turnId: string;
  readonly node: string;
  readonly fence: () => void;
  readonly now: () => Date;
  /** Carried by every record (the lease epoch the seat acts under). */
  readonly headers?: Record<string, string>;
}

export function journalWriter(opts: JournalWriterOptions): JournalWriter {
  const subject = Subjects.turnJournal(opts.handle, opts.turnId);
  const epoch = opts.headers ? leaseEpochOf(opts.headers) : null;
  /** Set by `mark`: the rule for a write answered `duplicate`. */
  let holder: StepHolder | null = null;
  const publish = (body: { readonly kind: string }, msgId: string): Promise<PubAck> => {
    opts.fence();
    const record = { ...body, at: opts.now().toISOString(), node: opts.node };
    return opts.bus.publish(subject, encoder.encode(JSON.stringify(record)), {
      msgId,
      ...(opts.headers ? { headers: opts.headers } : {}),
    });
  };
  return {
    async write(entry) {
      await publishStep(opts.bus, Streams.Turns, holder, msgIdOf(opts.turnId, entry), (id) =>
        publish(entry, id),
      );
    },
    async mark() {
      if (epoch === null) return null;
      const ack = await publish({ kind: 'held' }, `${opts.turnId}:held@${epoch}`);
      holder = { epoch, marks: [...(holder?.marks ?? []), { seq: ack.seq, epoch }] };
      return ack;
    },
    saw(mark) {
      if (epoch !== null) holder = { epoch, marks: [...(holder?.marks ?? []), mark] };
    },
  };
}

/** One phase's view of the journal while it runs. */
export interface PhaseJournal {
  /** What an earlier run of this phase recorded; null for a phase never started. */
  readonly prior: PhaseRecord | null;
  /** The spend id of a recorded round whose spend may be missing (see `TurnJournal.unsettledSpend`). */
  readonly unsettledSpend: string | null;
  /** Spend of this phase's answers that failed, on record but maybe not stored (see `unsettledUnfinished`). */
  readonly unsettledUnfinished: readonly SpendRecord[];
  write(entry: JournalEntry): Promise<void>;
}

/** A phase's journal when none is kept (a test or a tool that runs a phase alone): nothing recorded. */
export const noJournal: PhaseJournal = {
  prior: null,
  unsettledSpend: null,
  unsettledUnfinished: [],
  write: () => Promise.resolve(),
};
