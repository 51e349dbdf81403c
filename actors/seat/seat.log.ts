/**
 * A seat actor's log (stream `SVC_SEATS`): the records that change the seat's own state — today its open
 * needs, asked and then answered, withdrawn or cleared — appended before the machine hears of them, and
 * read back when a node takes the seat up, so a restart, a crash or a peer taking over starts from the
 * same state. A snapshot of the folded state every `snapshotEvery` records bounds what a start reads: the
 * newest snapshot, then the tail after it. It also bounds what the stream keeps: once a snapshot is
 * stored, the records the snapshot before it covered, and the snapshots older than that one, are removed
 * (one snapshot's records of lag, so a retried append's dedup id and a reader a little behind still find
 * what they expect). Appends run one at a time, so a snapshot always follows the record it folds through
 * before the next record is stored: a reader of the stream finds no record of the seat between the two.
 * Records and snapshots carry the lease epoch of the holder that wrote them (header `svc-lease-epoch`);
 * once one of epoch E is read, a later one below E — a superseded holder's write that reached the bus
 * late — is ignored, and one without the header is folded (schema/lease-epoch.ts). A holder opening the
 * log under an epoch first stores an epoch mark (`svc.seats.<handle>.held`) and only then reads: a late
 * record stored after the mark is below it, so the holder, which read before it landed, and every later
 * reader, which reads the mark before it, both pass it over. Marks go with the records the compaction
 * removes; a holder whose epoch a newer mark passed removes nothing. An append answered `duplicate` by such a
 * late record of the same step is written again under the holder's epoch (step.publish.ts).
 */
import { Streams, Subjects, type Bus } from '../../bus/index.js';
import { markBefore, publishStep, type EpochMark, type StepHolder } from './step.publish.js';
import {
  foldNeeds,
  leaseEpochOf,
  needsEventOf,
  nextEpochMark,
  SeatLogRecord,
  SeatSnapshot,
  type SeatLogEntry,
  type SeatNeed,
} from '../../schema/index.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Records between two snapshots. */
export const SNAPSHOT_EVERY = 50;

export interface SeatLog {
  /** The open needs the log folds to (as rebuilt on open, then as appended). */
  needs(): readonly SeatNeed[];
  /** Appends one record behind the fence; resolves once it is stored (a snapshot may follow). */
  append(entry: SeatLogEntry): Promise<void>;
}

export interface SeatLogOptions {
  readonly bus: Bus;
  readonly handle: string;
  readonly node: string;
  /** The seat lease's fence: a holder that lost the seat writes nothing. */
  readonly fence: () => void;
  readonly now: () => Date;
  /** Carried by every record (the lease epoch the seat acts under). */
  readonly headers?: Record<string, string>;
  readonly snapshotEvery?: number;
  /**
   * An unreadable record or snapshot (skipped: the state misses what it said), a superseded holder's late
   * one (ignored), or a snapshot not written.
   */
  readonly onTrouble?: (what: string, error: unknown) => void;
}

function parse<T>(schema: { parse(v: unknown): T }, data: Uint8Array): T {
  return schema.parse(JSON.parse(decoder.decode(data)));
}

interface Snapshot {
  readonly value: SeatSnapshot;
  /** Where it is stored. */
  readonly seq: number;
  /** The lease epoch it was written under (its header; 0 when it has none). */
  readonly epoch: number;
}

/**
 * The epoch marks kept on the seat's log, in stream order. Few: a holder writes one when it takes the seat,
 * and the compaction removes them with the records.
 */
async function readMarks(opts: SeatLogOptions, subject: string): Promise<readonly EpochMark[]> {
  const marks: EpochMark[] = [];
  for await (const msg of opts.bus.replay(Streams.Seats, { subject })) {
    const epoch = leaseEpochOf(msg.headers);
    if (epoch !== null) marks.push({ seq: msg.seq, epoch });
  }
  return marks;
}

/**
 * The epoch a record at `seq` is judged by: the highest read before it (`mark`) or marked before it. The
 * marks are read apart from the records; this puts each back where the stream holds it.
 */
const markAt = (marks: readonly EpochMark[], mark: number, seq: number): number =>
  Math.max(mark, markBefore(marks, seq));

/**
 * The snapshot a start stands on: the newest readable one, read in stream order with the rule of every
 * record of the seat — one of an epoch below a snapshot read before it, or below a mark stored before it, is
 * a superseded holder's late write and is passed over. An unreadable newest one falls back to the one
 * before it, which the compaction keeps with every record after it; with none readable the start folds
 * every kept record. The compaction keeps two snapshots (more only while a removal fails), so reading them
 * all stays small.
 */
async function standingSnapshot(
  opts: SeatLogOptions,
  subject: string,
  marks: readonly EpochMark[],
): Promise<Snapshot | null> {
  let found: Snapshot | null = null;
  let mark = 0;
  for await (const msg of opts.bus.replay(Streams.Seats, { subject })) {
    const judged = markAt(marks, mark, msg.seq);
    const next = nextEpochMark(judged, msg.headers);
    if (next === null) {
      opts.onTrouble?.(`snapshot ${msg.seq}`, lateRecord(judged, msg.headers));
      continue;
    }
    try {
      found = { value: parse(SeatSnapshot, msg.data), seq: msg.seq, epoch: next };
      mark = next;
    } catch (error) {
      opts.onTrouble?.(`snapshot ${msg.seq}`, error);
    }
  }
  return found;
}

/** Why a record was passed over: told, so an operator sees a superseded holder's write came in late. */
function lateRecord(mark: number, headers: Readonly<Record<string, string>>): Error {
  return new Error(
    `written under lease epoch ${leaseEpochOf(headers)} after epoch ${mark} was read: ignored`,
  );
}

/**
 * Marks the holder's epoch on the log (when it has one), then reads the log — the newest snapshot, then
 * every record after it — and opens it for appending.
 */
export async function openSeatLog(opts: SeatLogOptions): Promise<SeatLog> {
  const logSubject = Subjects.seatLog(opts.handle);
  const snapshotSubject = Subjects.seatSnapshot(opts.handle);
  const heldSubject = Subjects.seatHeld(opts.handle);
  const every = opts.snapshotEvery ?? SNAPSHOT_EVERY;
  const stamp = () => ({ at: opts.now().toISOString(), node: opts.node });
  const publish = (subject: string, body: unknown, msgId?: string) => {
    opts.fence();
    return opts.bus.publish(subject, encoder.encode(JSON.stringify(body)), {
      ...(msgId ? { msgId } : {}),
      ...(opts.headers ? { headers: opts.headers } : {}),
    });
  };
  // Before reading: a superseded holder's record that lands after this read is stored after the mark, below
  // it for every reader. A retried open of the same epoch stores the mark once.
  const epoch = opts.headers ? leaseEpochOf(opts.headers) : null;
  if (epoch !== null) await publish(heldSubject, stamp(), `held:${opts.handle}@${epoch}`);
  const marks = await readMarks(opts, heldSubject);
  // Its own mark is among them: a step answered `duplicate` by a late record stored after it is written again.
  const holder: StepHolder | null = epoch === null ? null : { epoch, marks };

  let needs: readonly SeatNeed[] = [];
  let fromSeq = 1;
  /** The newest stored snapshot: what the next one's removal keeps back to. */
  let previous: { readonly through: number; readonly at: number } | null = null;
  /** The highest lease epoch read: a record below it is a superseded holder's late write, not folded. */
  let mark = 0;
  const snapshot = await standingSnapshot(opts, snapshotSubject, marks);
  if (snapshot) {
    needs = snapshot.value.needs;
    fromSeq = snapshot.value.seq + 1;
    previous = { through: snapshot.value.seq, at: snapshot.seq };
    mark = snapshot.epoch;
  }
  let sinceSnapshot = 0;
  for await (const msg of opts.bus.replay(Streams.Seats, { subject: logSubject, fromSeq })) {
    sinceSnapshot += 1;
    const judged = markAt(marks, mark, msg.seq);
    const next = nextEpochMark(judged, msg.headers);
    if (next === null) {
      opts.onTrouble?.(`record ${msg.seq}`, lateRecord(judged, msg.headers));
      continue;
    }
    try {
      needs = foldNeeds(needs, needsEventOf(parse(SeatLogRecord, msg.data)));
      mark = next;
    } catch (error) {
      opts.onTrouble?.(`record ${msg.seq}`, error);
    }
  }

  /**
   * Removes what the snapshot before `latest` covered; a failure is retried by the next snapshot. The marks
   * below the first record kept go too, last (a mark outliving its records is harmless, the reverse is not):
   * a reader of what is kept reads the older snapshot, of the holder's epoch, in their place.
   */
  const compact = async (latest: { readonly through: number; readonly at: number }): Promise<void> => {
    const older = previous;
    previous = latest;
    if (older === null) return;
    try {
      if (await superseded()) return;
      await opts.bus.purgeBelow(Streams.Seats, older.through + 1, logSubject);
      await opts.bus.purgeBelow(Streams.Seats, older.at, snapshotSubject);
      // A log opened without marks has none to remove (a mark stored since is a newer holder's).
      if (marks.length > 0) await opts.bus.purgeBelow(Streams.Seats, older.through + 1, heldSubject);
    } catch (error) {
      opts.onTrouble?.('compaction not done', error);
    }
  };

  /**
   * Whether this holder lost the seat, so that it must not purge (a purge checks no fence on the bus): its
   * fence refuses, or a mark of a higher epoch is stored. Checked once, before the purges, and that is
   * enough: a mark stored after the check lands after this holder's newest snapshot, so above every bound the
   * purges use (each is at most the older snapshot's sequence), and a newer holder writes every record of its
   * own after its mark.
   */
  const superseded = async (): Promise<boolean> => {
    opts.fence();
    if (epoch === null) return false;
    const newer = (await readMarks(opts, heldSubject)).find((m) => m.epoch > epoch);
    if (newer === undefined) return false;
    opts.onTrouble?.(
      'compaction not done',
      new Error(`lease epoch ${newer.epoch} marked at ${newer.seq} is above this holder's ${epoch}`),
    );
    return true;
  };

  const appendOne = async (entry: SeatLogEntry): Promise<void> => {
    // A repeat (a builtin retried after a cut asks with the same need id) is stored once.
    const msgId =
      entry.kind === 'need_recorded'
        ? `need:${opts.handle}:${entry.need.id}`
        : entry.kind === 'needs_closed'
          ? `closed:${opts.handle}:${entry.key}`
          : `taken:${opts.handle}:${entry.turn_id}`;
    const body = { ...entry, ...stamp() };
    const ack = await publishStep(opts.bus, Streams.Seats, holder, msgId, (id) =>
      publish(logSubject, body, id),
    );
    needs = foldNeeds(needs, needsEventOf(entry));
    if (ack.duplicate) return;
    sinceSnapshot += 1;
    if (sinceSnapshot < every) return;
    let snapshot;
    try {
      snapshot = await publish(snapshotSubject, { ...stamp(), seq: ack.seq, needs });
      sinceSnapshot = 0;
    } catch (error) {
      // The record is stored; a start reads a longer tail until the next append snapshots.
      opts.onTrouble?.('snapshot not written', error);
      return;
    }
    await compact({ through: ack.seq, at: snapshot.seq });
  };

  let appending: Promise<unknown> = Promise.resolve();
  return {
    needs: () => needs,
    append(entry) {
      const next = appending.then(() => appendOne(entry));
      appending = next.catch(() => undefined);
      return next;
    },
  };
}
