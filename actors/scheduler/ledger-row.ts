/**
 * A firing's ledger row is stored once, whoever sends it and however late (ops/schedules.md "Claims").
 * Its event id is derived from the firing, but the events stream forgets ids after 2 min, and a sender
 * paused between its wake and its row (SIGSTOP, a long GC, a VM freeze) can come back later than that,
 * after a peer completed the firing. So the row is stored by compare-and-set on the ledger subject: a
 * sender reads the subject's rows up to its last sequence, and publishes only while that is still the
 * last (`expectedLastSubjectSeq`). A row stored meanwhile refuses the publish; the sender reads the rows
 * since, and stops when its firing's row is among them. No check precedes the store that a pause could
 * outlive: the store itself refuses.
 */
import {
  publishEvent,
  Streams,
  Subjects,
  WrongLastSequenceError,
  type Bus,
  type StoredMessage,
} from '../../bus/index.js';
import { EventRecord, LedgerRow, SCHEDULE_FIRED } from '../../schema/index.js';

const decoder = new TextDecoder();
const LEDGER = Subjects.event(SCHEDULE_FIRED);

/** Rows stored while a sender tries, before it gives up (the claim stays unfinished for the next holder). */
const MAX_ATTEMPTS = 50;

/** What a sender read of the ledger subject: every row up to `lastSeq`, and its firing's row if among them. */
export interface RowSearch {
  readonly lastSeq: number;
  readonly row: LedgerRow | null;
}

/**
 * The ledger subject's last sequence: read by a claimant before it claims, as no row of its firing can be
 * stored before the claim exists; its row is then stored only if none came since.
 */
export async function ledgerMark(bus: Bus): Promise<RowSearch> {
  return { lastSeq: (await bus.lastMessage(Streams.Events, LEDGER))?.seq ?? 0, row: null };
}

/** Reads the ledger subject from `from` to its current end for the row with event id `id`. */
export async function findRow(
  bus: Bus,
  id: string,
  from: { readonly since: Date } | { readonly fromSeq: number },
): Promise<RowSearch> {
  const lastSeq = (await bus.lastMessage(Streams.Events, LEDGER))?.seq ?? 0;
  if (lastSeq === 0 || ('fromSeq' in from && from.fromSeq > lastSeq)) return { lastSeq, row: null };
  for await (const msg of bus.replay(Streams.Events, { subject: LEDGER, ...from, toSeq: lastSeq })) {
    const row = rowOf(msg, id);
    if (row !== null) return { lastSeq, row };
  }
  return { lastSeq, row: null };
}

function rowOf(msg: StoredMessage, id: string): LedgerRow | null {
  const record = EventRecord.safeParse(parseJson(msg.data));
  if (!record.success || record.data.id !== id) return null;
  const row = LedgerRow.safeParse(record.data.payload);
  return row.success ? row.data : null;
}

const parseJson = (bytes: Uint8Array): unknown => {
  try {
    return JSON.parse(decoder.decode(bytes)) as unknown;
  } catch {
    return null;
  }
};

/**
 * Stores `record` (a `schedule_fired` event) unless its row is stored: resolves with `stored: true` when
 * this call stored it, else with the row another sender stored.
 */
export async function storeRowOnce(
  bus: Bus,
  record: EventRecord,
  search: RowSearch,
): Promise<{ readonly stored: boolean; readonly row: LedgerRow }> {
  // The compare-and-set is on the ledger subject, which is the subject of this one type.
  if (record.type !== SCHEDULE_FIRED) throw new Error(`ledger row ${record.id} is a ${record.type} event`);
  let seen = search;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    if (seen.row !== null) return { stored: false, row: seen.row };
    try {
      // Through the admission check like every stored event; a stored type is answered with an ack.
      const ack = await publishEvent(bus, record, { expectedLastSubjectSeq: seen.lastSeq });
      if (ack === null) throw new Error(`ledger row ${record.id} was emitted, not stored`);
      if (!ack.duplicate) return { stored: true, row: LedgerRow.parse(record.payload) };
      // Within the 2 min window the store answers the id as a duplicate before checking the sequence.
      const stored = await bus.getMessage(Streams.Events, ack.seq);
      const row = stored === null ? null : rowOf(stored, record.id);
      return { stored: false, row: row ?? LedgerRow.parse(record.payload) };
    } catch (error) {
      if (!(error instanceof WrongLastSequenceError)) throw error;
      seen = await findRow(bus, record.id, { fromSeq: seen.lastSeq + 1 });
    }
  }
  throw new Error(`ledger row ${record.id} not stored: ${MAX_ATTEMPTS} other rows came first`);
}
