/**
 * The seat's needs as the host writes them: each change is appended to the seat's log, then told to the
 * machine (event-sourced), and a closing is published as the event its cause names.
 */
import type { NeedRecorded } from '../toolservers/index.js';
import type { SeatEvents } from './seat.events.js';
import type { CloseNeeds } from './seat.host.types.js';
import type { SeatLog } from './seat.log.js';
import { needsEventOf, type NeedsClosedCause, type NeedsEvent, type SeatNeed } from '../../schema/index.js';
import { answeredBy, roomForNeed, turnNeeds } from './seat.needs.js';

/** The event each way of closing needs publishes (ops/event-types.md). */
const closedEventType: Record<NeedsClosedCause, string> = {
  answered: 'human_answered',
  withdrawn: 'question_withdrawn',
  cleared: 'needs_cleared',
};

export interface NeedsWriter {
  /** Appends the need, or refuses it when the seat already waits on as many as it may (nothing written). */
  readonly record: (need: SeatNeed) => Promise<NeedRecorded>;
  /** Closes the listed ids that are open; resolves with those it closed (none: nothing written). */
  readonly close: (close: CloseNeeds) => Promise<string[]>;
  /** A wake from `from`, whom the seat asked: the questions put to them are answered by that wake. */
  readonly answered: (from: string, wakeId: string, turnId: string) => Promise<void>;
}

export function needsWriter(opts: {
  readonly handle: string;
  readonly seatLog: SeatLog;
  readonly events: Pick<SeatEvents, 'event' | 'publishEvent'>;
  /** The machine: told of a record once it is stored. */
  readonly tell: (event: NeedsEvent) => void;
}): NeedsWriter {
  const { handle, seatLog, events } = opts;

  async function close(close: CloseNeeds): Promise<string[]> {
    const wanted = new Set(close.ids);
    const ids = seatLog
      .needs()
      .filter((n) => wanted.has(n.id))
      .map((n) => n.id);
    if (ids.length === 0) return [];
    const entry = {
      kind: 'needs_closed',
      cause: close.cause,
      ids,
      by: close.by,
      key: close.key,
      turn_id: close.turn_id,
    } as const;
    await seatLog.append(entry);
    opts.tell(needsEventOf(entry));
    const type = closedEventType[close.cause];
    const payload = {
      need_ids: ids,
      by: close.by,
      turn_id: close.turn_id,
      ...(close.wake_id ? { wake_id: close.wake_id } : {}),
      remaining: turnNeeds(seatLog.needs()),
    };
    // The log holds the truth; a record lost here is restated by the seat's next completion.
    await events.publishEvent({ ...events.event(type, payload), id: `${type}-${handle}-${close.key}` });
    return ids;
  }

  // One record at a time: two asks of one turn checked together could both pass the cap.
  let recording: Promise<unknown> = Promise.resolve();
  async function record(need: SeatNeed): Promise<NeedRecorded> {
    if (!roomForNeed(seatLog.needs(), need)) return { recorded: false, open: seatLog.needs().length };
    const entry = { kind: 'need_recorded', need } as const;
    await seatLog.append(entry);
    opts.tell(needsEventOf(entry));
    return { recorded: true, open: seatLog.needs().length };
  }

  return {
    record: (need) => {
      const next = recording.then(() => record(need));
      recording = next.catch(() => undefined);
      return next;
    },
    close,
    answered: (from, wakeId, turnId) =>
      close({
        cause: 'answered',
        ids: answeredBy(seatLog.needs(), from),
        by: from,
        key: `answered:${wakeId}`,
        turn_id: turnId,
        wake_id: wakeId,
      }).then(() => undefined),
  };
}
