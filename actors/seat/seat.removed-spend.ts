/**
 * The spend a removed seat's journals hold and may not have stored. A turn cut by a crash between journaling
 * a model call's spend and storing it is settled by whoever resumes it; a seat removed from the company (or
 * made human) resumes nothing, so the apply that removes it stores that spend instead, under the records' own
 * ids: a copy the crashed run did store is a duplicate, and the budget and the read models count an id once.
 * The journals are left as they are (kept 7 days), so a seat added back under its handle still resumes its
 * cut turn, and that resume's spend is again a duplicate.
 */
import { Streams, Subjects, type Bus } from '../../bus/index.js';
import type { SpendRecord } from '../../schema/index.js';
import { foldJournal, journalReader } from './turn.journal.js';
import type { JournalRecord } from './turn.journal.records.js';

/** Every unsettled spend record of `handle`'s journals, turn by turn. */
export async function unsettledSpendOf(bus: Bus, handle: string): Promise<SpendRecord[]> {
  const turns = new Map<string, { read: ReturnType<typeof journalReader>; records: JournalRecord[] }>();
  for await (const msg of bus.replay(Streams.Turns, { subject: Subjects.seatJournals(handle) })) {
    let turn = turns.get(msg.subject);
    if (!turn) turns.set(msg.subject, (turn = { read: journalReader(), records: [] }));
    const record = turn.read(msg);
    if (record) turn.records.push(record);
  }
  return [...turns.values()].flatMap(({ records }) =>
    records.length === 0 ? [] : foldJournal(records).unsettledRecords,
  );
}
