/**
 * Every seat's open needs as the seats' logs (stream `SVC_SEATS`) keep them, for readers outside the seat
 * actor: the log keeps its records without age, so a question stays known after the event that announced it
 * has left the 30-day history. Read-only: the seat host alone appends (seat.log.ts).
 */
import { Streams, type Bus, type Subscription } from '../../bus/index.js';
import { foldNeeds, needsEventOf, SeatLogRecord, type SeatNeed } from './seat.needs.js';

const decoder = new TextDecoder();
const logSubject = /^svc\.seats\.([^.]+)\.log$/;

/**
 * Folds every seat's log from the first record (snapshots are skipped: each is the fold of records the
 * stream still holds), tells `onNeeds` each seat's open needs once the stored records are read (a seat with
 * none is not told), then each change as records are appended. Resolves once the stored records are told.
 */
export async function watchSeatNeeds(
  bus: Bus,
  onNeeds: (handle: string, needs: readonly SeatNeed[]) => void,
  onTrouble?: (seq: number, error: unknown) => void,
): Promise<Subscription> {
  const bySeat = new Map<string, readonly SeatNeed[]>();
  /** The seat whose needs the record changed, or null (not a log record, unreadable, or no change). */
  const fold = (subject: string, seq: number, data: Uint8Array): string | null => {
    const handle = logSubject.exec(subject)?.[1];
    if (handle === undefined) return null;
    try {
      const record = SeatLogRecord.parse(JSON.parse(decoder.decode(data)));
      const before = bySeat.get(handle) ?? [];
      const after = foldNeeds(before, needsEventOf(record));
      if (after === before) return null;
      bySeat.set(handle, after);
      return handle;
    } catch (error) {
      // The seat's own start skips it the same way (seat.log.ts): the state misses what it said.
      onTrouble?.(seq, error);
      return null;
    }
  };
  const { lastSeq } = await bus.streamInfo(Streams.Seats);
  for await (const msg of bus.replay(Streams.Seats, { toSeq: lastSeq })) fold(msg.subject, msg.seq, msg.data);
  for (const [handle, needs] of bySeat) if (needs.length > 0) onNeeds(handle, needs);
  return bus.follow(Streams.Seats, { fromSeq: lastSeq + 1 }, (msg) => {
    const handle = fold(msg.subject, msg.seq, msg.data);
    if (handle !== null) onNeeds(handle, bySeat.get(handle) ?? []);
  });
}
