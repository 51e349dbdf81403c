/**
 * Reads of a seat's waiting wakes for inbox batching (seat.coalesce.ts): by subject and sequence, with no
 * consumer, since the inbox is a work-queue stream whose one consumer is the seat's own.
 */
import { Streams, Subjects, type Bus } from '../../bus/index.js';
import { InboxMessage } from '../../schema/index.js';
import { batchable, inWindow, type Absorbed } from './seat.coalesce.js';

/** How far past the first wake the inbox is read for others (other seats' wakes share the stream). */
const scanMax = 1_000;

export interface Waiting {
  readonly wake: InboxMessage;
  readonly seq: number;
}

const decoder = new TextDecoder();

function parseWake(data: Uint8Array): InboxMessage | null {
  try {
    const parsed = InboxMessage.safeParse(JSON.parse(decoder.decode(data)));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export interface WaitingRead {
  readonly bus: Bus;
  readonly handle: string;
  /** Whether a wake's turn has completed already (its delivery is only acknowledged). */
  done(wakeId: string): Promise<boolean>;
}

/**
 * The notification wakes waiting behind `first` (at `afterSeq`) that may join it, oldest first: those
 * received within `windowMs` of it.
 */
export async function waitingWakes(
  read: WaitingRead,
  first: InboxMessage,
  afterSeq: number,
  limit: number,
  windowMs: number,
): Promise<Waiting[]> {
  const subject = Subjects.agentInbox(read.handle);
  const found: Waiting[] = [];
  let from = afterSeq + 1;
  for (let scanned = 0; found.length < limit && scanned < scanMax; scanned += 1) {
    const msg = await read.bus.nextMessage(Streams.Inbox, subject, from);
    if (msg === null) break;
    from = msg.seq + 1;
    const wake = parseWake(msg.data);
    // Another sender's message waits for its own turn: the answer it gives is to that sender.
    if (wake === null || !batchable(wake) || (wake.from ?? null) !== (first.from ?? null)) continue;
    if (!inWindow(first, wake, windowMs)) continue;
    if (await read.done(wake.id)) continue;
    found.push({ wake, seq: msg.seq });
  }
  return found;
}

/** The absorbed wakes of a resumed turn, read again by sequence; those gone since are left out. */
export async function absorbedAgain(bus: Bus, absorbed: readonly Absorbed[]): Promise<Waiting[]> {
  const found: Waiting[] = [];
  for (const { id, seq } of absorbed) {
    const msg = await bus.getMessage(Streams.Inbox, seq);
    const wake = msg && parseWake(msg.data);
    if (wake && wake.id === id) found.push({ wake, seq });
  }
  return found;
}
