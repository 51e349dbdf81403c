/**
 * A seat host's inbox side: the durable consumer on `svc.agent.<handle>.inbox` and what taking one wake
 * does. A wake whose turn completed already (`svc_turns_done`) is acknowledged without running; one taken
 * while the seat stops, drains, is paused or busy is left for redelivery; otherwise its turn is journaled
 * as started (or resumed from its journal) and handed to the seat machine, and the wake is acknowledged
 * once the turn's events are stored — after the fence, so a holder that lost the seat leaves it.
 */
import type { Logger } from 'pino';
import type { Actor } from 'xstate';
import { RedeliverError, Streams, Subjects, type Bus, type Kv, type Subscription } from '../../bus/index.js';
import { InboxMessage, uuidv5 } from '../../schema/index.js';
import type { seatMachine } from './seat.machine.js';
import type { SeatProfile } from './seat.profile.js';
import { batchable, mergeWakes, windowLeft, type Coalescing } from './seat.coalesce.js';
import { absorbedAgain, waitingWakes, type Waiting } from './seat.waiting.js';
import { moveLegacyTurnRecords, seatKeys } from './seat.records.js';
import { turnDeadline } from './turn.deadline.js';
import { openTurn, wakeEvent, type OpenedTurn } from './turn.resume.js';

const decoder = new TextDecoder();

/** What the inbox side reads and calls of its host. */
export interface InboxHost {
  readonly bus: Bus;
  readonly coord: Kv;
  readonly turnsDone: Kv;
  readonly nodeId: string;
  readonly handle: string;
  readonly log: Logger;
  readonly fence: () => void;
  readonly now: () => Date;
  readonly headers?: Record<string, string>;
  readonly pausedRetryMs?: number;
  readonly inboxAckWaitMs?: number;
  readonly actor: Actor<typeof seatMachine>;
  profile(): SeatProfile;
  /** The company's inbox batching as last applied; read as each wake is taken. */
  coalescing(): Coalescing;
  /** False once the host stops or drains: a wake not yet started stays in the inbox. */
  accepting(): boolean;
  /** A wake from `from` starts its turn: the questions the seat asked that human are answered. */
  answered(from: string, wakeId: string, turnId: string): Promise<void>;
  /** The turn is taken: its journal kept for its phases; settles once it completes (or is cut). */
  begin(turnId: string, opened: OpenedTurn): Promise<void>;
}

/** Takes one wake (at `seq` on the inbox): runs (or resumes) its turn to completion, or throws to leave it. */
export async function takeWake(host: InboxHost, raw: Uint8Array, seq: number): Promise<void> {
  const { log, actor, handle } = host;
  let wake: InboxMessage;
  try {
    wake = InboxMessage.parse(JSON.parse(decoder.decode(raw)));
  } catch (error) {
    log.warn({ err: error }, 'inbox message unreadable; dropped');
    return;
  }
  const turnOf = (wakeId: string): string => uuidv5(host.profile().agent_id, wakeId);
  const turn_id = turnOf(wake.id);
  if (await completed(host, turn_id)) {
    log.info({ wake_id: wake.id }, 'wake already completed; acknowledged');
    return;
  }
  const retry = host.pausedRetryMs ?? 2000;
  if (!host.accepting()) throw new RedeliverError('seat stopping');
  host.fence();
  if (actor.getSnapshot().matches({ stopped: 'paused' })) {
    log.debug({ wake_id: wake.id }, 'seat paused; wake left for later');
    throw new RedeliverError('seat paused', retry);
  }
  // A turn an earlier run started resumes from its journal: its start, its limits, its records.
  const opened = await openTurn({
    bus: host.bus,
    handle,
    turnId: turn_id,
    node: host.nodeId,
    fence: host.fence,
    now: host.now,
    ...(host.headers ? { headers: host.headers } : {}),
  });
  const resumed = opened.prior?.started ?? null;
  // A scheduled wake bounds its turn; one taken after its deadline fails at once, without a model call.
  const deadline = turnDeadline(wake.payload, {
    handle,
    turnId: turn_id,
    now: host.now,
    ...(resumed ? { resumed: true } : {}),
  });
  // A resumed turn takes the wakes its journal names; a fresh one waits out the window for others.
  const batch = resumed
    ? await absorbedAgain(host.bus, resumed.absorbed ?? [])
    : await gatherBatch(host, wake, seq, (id) => completed(host, turnOf(id)));
  const merged = mergeWakes(
    wake,
    batch.map((b) => b.wake),
  );
  const start = wakeEvent(merged, turn_id, resumed, deadline.expired, host.now);
  const busy = (): boolean => !actor.getSnapshot().can(start);
  if (busy()) throw new RedeliverError('seat busy', retry);
  if (!resumed && !deadline.expired)
    await opened.writer.write({
      kind: 'turn_started',
      wake_id: wake.id,
      limits: actor.getSnapshot().context.limits,
      ...(batch.length > 0 ? { absorbed: batch.map((b) => ({ id: b.wake.id, seq: b.seq })) } : {}),
    });
  // The sender is answered as the turn starts; a resumed turn finds it answered already.
  if (wake.from) await host.answered(wake.from, wake.id, turn_id);
  // Checked again after the writes: a pause or a stop may have come meanwhile.
  if (!host.accepting() || busy()) throw new RedeliverError('seat busy', retry);
  const done = host.begin(turn_id, opened);
  actor.send(start);
  const disarm = deadline.arm((e) => actor.send(e));
  log.info(
    { wake_id: wake.id, turn_id, expired: deadline.expired !== undefined, resumed: resumed !== null },
    resumed ? 'turn resumed' : 'turn started',
  );
  try {
    await done;
  } finally {
    disarm();
  }
  // The absorbed wakes are done with it: their own deliveries are acknowledged without a turn.
  if (batch.length > 0) host.fence();
  for (const { wake: absorbed } of batch) await markDone(host, turnOf(absorbed.id), turn_id);
  // The acknowledgement is an effect too: a fenced holder leaves the wake to the new one.
  host.fence();
  log.info({ wake_id: wake.id, turn_id, absorbed: batch.length }, 'turn completed');
}

/**
 * A fresh notification wake under a coalescing window: waits until the window since it was received has
 * passed (in short steps, so a stop is not held up), then reads the wakes that join it.
 */
async function gatherBatch(
  host: InboxHost,
  wake: InboxMessage,
  seq: number,
  done: (wakeId: string) => Promise<boolean>,
): Promise<Waiting[]> {
  const { windowMs, maxBatch } = host.coalescing();
  if (windowMs === 0 || maxBatch < 2 || !batchable(wake)) return [];
  // Counted on the seat's clock from the delivery's receipt, waited out on the wall clock.
  const until = Date.now() + windowLeft(wake.received_at, host.now(), windowMs);
  while (Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, Math.min(until - Date.now(), stepMs)));
    if (!host.accepting()) throw new RedeliverError('seat stopping');
  }
  host.fence();
  if (host.actor.getSnapshot().matches({ stopped: 'paused' }))
    throw new RedeliverError('seat paused', host.pausedRetryMs ?? 2000);
  return waitingWakes({ bus: host.bus, handle: host.handle, done }, wake, seq, maxBatch - 1, windowMs);
}

/** How often a wake waiting out its window checks that the seat still takes wakes. */
const stepMs = 200;

const encoder = new TextEncoder();

/** Records an absorbed wake's turn as done, naming the turn that took it. */
async function markDone(host: InboxHost, turnId: string, by: string): Promise<void> {
  await host.turnsDone.put(
    seatKeys.turnDone(host.handle, turnId),
    encoder.encode(JSON.stringify({ turn_id: turnId, at: host.now().toISOString(), absorbed_by: by })),
  );
}

/** Whether the turn completed already: its record, or one written before `svc_turns_done` existed. */
const completed = async (host: InboxHost, turnId: string): Promise<boolean> =>
  (await host.turnsDone.get(seatKeys.turnDone(host.handle, turnId))) !== null ||
  (await host.coord.get(seatKeys.legacyTurnDone(host.handle, turnId))) !== null;

/** Opens the seat's durable inbox consumer, first moving its pre-`svc_turns_done` records. */
export async function consumeInbox(host: InboxHost): Promise<Subscription> {
  try {
    const count = await moveLegacyTurnRecords(host.coord, host.turnsDone, host.handle);
    if (count > 0) host.log.info({ moved: count }, 'completed-turn records moved to svc_turns_done');
  } catch (error) {
    // They stay readable where they are: nothing runs twice, the move is tried on the next start.
    host.log.warn({ err: error }, 'completed-turn records not moved');
  }
  return host.bus.consume(
    Streams.Inbox,
    {
      durable: `seat-${host.handle}`,
      filterSubject: Subjects.agentInbox(host.handle),
      // A running turn keeps its wake however long it takes; a holder that died loses it this soon.
      ackWaitMs: host.inboxAckWaitMs ?? 30_000,
    },
    (msg) => takeWake(host, msg.data, msg.seq),
  );
}
