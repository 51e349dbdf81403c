/**
 * The lease epoch a record was written under (the header `svc-lease-epoch`, the fencing token), and the
 * rule a reader of a seat's own records applies with it: once a record of epoch E has been read, a later
 * record of a lower epoch is a superseded holder's late write (handed to the socket before a pause longer
 * than the fence's margin) and is not folded. Here rather than in actors/lease because the read models
 * read it too, and projections import schema, not actors.
 */

/** The header every record written as a lease holder carries. */
export const LEASE_EPOCH_HEADER = 'svc-lease-epoch';

/**
 * The epoch in `headers`, or null when there is none (a single-process node or an earlier release wrote the
 * record) or it is not a count. The name is compared without case: NATS keeps a header's name as it was
 * sent, and a writer may send the canonical `Svc-Lease-Epoch`.
 */
export function leaseEpochOf(headers: Readonly<Record<string, string>>): number | null {
  for (const name of Object.keys(headers)) {
    if (name.toLowerCase() !== LEASE_EPOCH_HEADER) continue;
    const value = headers[name]?.trim() ?? '';
    return /^\d{1,15}$/.test(value) ? Number(value) : null;
  }
  return null;
}

/**
 * The highest epoch read after one more record at `mark`, or null when the record is late (its epoch is
 * below the mark) and is to be ignored. A record without an epoch is always folded and leaves the mark.
 */
export function nextEpochMark(mark: number, headers: Readonly<Record<string, string>>): number | null {
  const epoch = leaseEpochOf(headers);
  if (epoch === null) return mark;
  return epoch < mark ? null : epoch;
}
