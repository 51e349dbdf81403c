/**
 * What a completed turn leaves, in this order: the `agent_turn_completed` record stating the seat's whole
 * wait, the episode of a learning seat, and last, behind the fence, the mark in `svc_turns_done` that
 * keeps its wake from running again — so a wake is never marked done before its records are stored.
 */
import type { Kv } from '../../bus/index.js';
import type { SeatNeed } from '../../schema/index.js';
import type { Fence } from '../lease/index.js';
import type { EpisodeRecorder } from './seat.episodes.js';
import type { SeatEvents } from './seat.events.js';
import { turnNeeds } from './seat.needs.js';
import { seatKeys } from './seat.records.js';
import type { TurnCompletedPayload } from './seat.types.js';
import type { EpisodeDraft } from './turn.episode.js';

const encoder = new TextEncoder();

/** The completion states the whole wait (every open need), and which of it this turn asked. */
export function completedPayload(
  payload: TurnCompletedPayload,
  needs: readonly SeatNeed[],
): TurnCompletedPayload {
  const open = turnNeeds(needs);
  const raised = needs.filter((n) => n.turn_id === payload.turn_id).map((n) => n.id);
  return open ? { ...payload, needs: { ...open, raised } } : payload;
}

/** Stores what the completed turn leaves; throws (a fence refusal among others) with the mark unwritten. */
export async function recordCompletion(
  seat: {
    readonly handle: string;
    readonly turnsDone: Kv;
    readonly fence: Fence;
    readonly events: Pick<SeatEvents, 'event' | 'publishEvent'>;
    readonly episodes: Pick<EpisodeRecorder, 'record'>;
    readonly leaseEpoch?: number | undefined;
  },
  payload: TurnCompletedPayload,
  traceId: string,
  draft: EpisodeDraft | undefined,
): Promise<void> {
  const record = seat.events.event('agent_turn_completed', payload, payload.failed, traceId);
  // The record id is the turn's: a second completion of one wake is de-duplicated.
  await seat.events.publishEvent({ ...record, id: `turn-${payload.turn_id}` });
  if (draft) await seat.episodes.record(draft, payload);
  seat.fence();
  await seat.turnsDone.put(
    seatKeys.turnDone(seat.handle, payload.turn_id),
    encoder.encode(
      JSON.stringify({
        turn_id: payload.turn_id,
        at: payload.ended_at,
        ...(seat.leaseEpoch !== undefined ? { lease_epoch: seat.leaseEpoch } : {}),
      }),
    ),
  );
}
