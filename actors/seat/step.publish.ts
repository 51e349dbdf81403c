/**
 * One step of a seat's records (a seat log record, a turn journal record) published under its
 * de-duplication id by a lease holder. The id does not carry the epoch: a step the next holder does again
 * after a crash (a resumed turn's `ask_human`) must be stored once. But a superseded holder's late record of
 * the same step can take the id first; readers ignore that record by its epoch, so the holder's own write,
 * answered `duplicate`, would leave the step unread. So a duplicate is judged by the record it duplicates.
 */
import type { Bus, PubAck } from '../../bus/index.js';
import { leaseEpochOf } from '../../schema/index.js';

/** An epoch mark stored on the records' subject: where, and under which epoch. */
export interface EpochMark {
  readonly seq: number;
  readonly epoch: number;
}

/** The holder's side of the rule: its epoch and the marks it knows were stored, its own included. */
export interface StepHolder {
  readonly epoch: number;
  readonly marks: readonly EpochMark[];
}

/**
 * Publishes a step with `publish(msgId)`. When the bus answers `duplicate`, the stored record it names (the
 * acknowledgement's sequence, on both engines the first record stored under the id) is looked at: one of an
 * epoch below a mark stored before it — the holder's own mark, at the least — is ignored by every reader, so
 * the step is written again under `<msgId>@<epoch>` (stored once for this epoch, and read). Any other
 * duplicate is a true repeat: stored before the marks (a record readers keep), of this epoch or a higher
 * one, without an epoch, or gone (a compaction removed it, a snapshot holds what it said).
 */
export async function publishStep(
  bus: Bus,
  stream: string,
  holder: StepHolder | null,
  msgId: string,
  publish: (msgId: string) => Promise<PubAck>,
): Promise<PubAck> {
  const ack = await publish(msgId);
  if (!ack.duplicate || holder === null) return ack;
  const above = markBefore(holder.marks, ack.seq);
  if (above === 0) return ack;
  const stored = await bus.getMessage(stream, ack.seq);
  const epoch = stored ? leaseEpochOf(stored.headers) : null;
  if (epoch === null || epoch >= above) return ack;
  return publish(`${msgId}@${holder.epoch}`);
}

/** The highest epoch marked before `seq` (0 for none). */
export function markBefore(marks: readonly EpochMark[], seq: number): number {
  let at = 0;
  for (const m of marks) if (m.seq < seq && m.epoch > at) at = m.epoch;
  return at;
}
