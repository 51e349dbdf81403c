/**
 * Gap checks of ordered reads (reader.ts). A purge with a subject filter moves every consumer behind it to
 * the first message left on that subject (nats-server 2.9), past messages it never removed; at each gap in
 * the sequences a read is given, these look whether a message it should have had is still stored.
 */
import type { JsMsg, MsgRequest } from '@nats-io/jetstream';
import { readThroughElection } from './election.js';
import type { EngineHost } from './host.js';
import { translate } from './translate.js';

/** What of a read's options its gap checks use. */
interface GapReadOptions {
  readonly filter?: string;
  readonly lastPerSubject?: boolean;
  readonly verifyGaps?: boolean;
}

/**
 * The sequence of the first stored message matching `filter` at or after `seq`, or null. STREAM.MSG.GET
 * takes `next_by_subj` (nats-server 2.9+); the client's type lists only seq and last.
 */
export async function nextStored(
  host: EngineHost,
  stream: string,
  filter: string,
  seq: number,
): Promise<number | null> {
  const query = { seq, next_by_subj: filter } as unknown as MsgRequest;
  try {
    return (await readThroughElection(host, (jsm) => jsm.streams.getMessage(stream, query)))?.seq ?? null;
  } catch (error) {
    throw translate(error, `read of stream ${stream}`);
  }
}

/** Messages a bounded read checks together: the lookups for their gaps go out at once. */
export const CHECK_BATCH = 64;

/**
 * How many of `batch` (consecutive messages of one consumer, after `after`) to take, and the first message
 * passed over that is still stored, when there is one (the batch is taken up to the gap before it). With
 * `beyond`, the gap from the last message up to it is checked too (the consumer delivered past the end).
 */
export async function checkBatch(
  check: (after: number | null, seq: number) => Promise<number | null>,
  after: number | null,
  batch: readonly JsMsg[],
  beyond: number | null,
): Promise<{ readonly take: number; readonly missed: number | null }> {
  const seqs = batch.map((m) => m.seq);
  if (beyond !== null) seqs.push(beyond);
  const missed = await Promise.all(seqs.map((seq, i) => check(i === 0 ? after : seqs[i - 1]!, seq)));
  const at = missed.findIndex((m) => m !== null);
  return at < 0 ? { take: batch.length, missed: null } : { take: at, missed: missed[at]! };
}

/**
 * For a read with `verifyGaps`: given the sequence the read is known to be past (null when unknown: a read
 * from an instant before its first message) and the next message's, the sequence of a message the consumer
 * passed over that is still stored, or null.
 */
export function gapChecker(
  host: EngineHost,
  stream: string,
  opts: GapReadOptions,
): (after: number | null, seq: number) => Promise<number | null> {
  const filter = opts.filter ?? '>';
  return async (after, seq) => {
    if (!opts.verifyGaps || opts.lastPerSubject || after === null || seq <= after + 1) return null;
    const next = await nextStored(host, stream, filter, after + 1);
    return next !== null && next < seq ? next : null;
  };
}
