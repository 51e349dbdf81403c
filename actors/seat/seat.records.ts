/**
 * The seat's records outside its turns: where a completed turn is marked (`svc_turns_done`, and the
 * `svc_coord` keys of releases before it) and where a pause is kept, with their readers.
 */
import type { Kv, Subscription } from '../../bus/index.js';
import { Payloads } from '../../schema/index.js';
import type { Paused } from './seat.types.js';

const decoder = new TextDecoder();

/** Keys of this seat: in `svc_turns_done` (`turnDone`) and in the coordination store (the others). */
export const seatKeys = {
  /** Set once the turn of a wake completed; the turn id is uuidv5(agent id, wake id). */
  turnDone: (handle: string, turnId: string): string => `${handle}.${turnId}`,
  /**
   * Where releases before `svc_turns_done` recorded a completed turn (in `svc_coord`, never expiring).
   * A seat host moves its own into `svc_turns_done` when it opens (`moveLegacyTurnRecords`) and still
   * reads here, for a node of an older release writing one meanwhile.
   */
  legacyTurnDone: (handle: string, turnId: string): string => `seat.${handle}.turn.${turnId}`,
  paused: (handle: string): string => `seat.${handle}.paused`,
};

/**
 * Moves the seat's completed-turn records from `svc_coord`, where releases before `svc_turns_done` kept
 * them with no expiry, into `svc_turns_done`, where they expire with the rest. Each is written there
 * before it is removed here, so a stop between the two leaves it readable in both. Answers how many moved.
 */
export async function moveLegacyTurnRecords(coord: Kv, turnsDone: Kv, handle: string): Promise<number> {
  const prefix = seatKeys.legacyTurnDone(handle, '');
  let moved = 0;
  for (const key of await coord.keys(`${prefix}*`)) {
    const entry = await coord.get(key);
    if (entry === null) continue;
    await turnsDone.put(seatKeys.turnDone(handle, key.slice(prefix.length)), entry.value);
    await coord.delete(key);
    moved += 1;
  }
  return moved;
}

function decodePaused(value: Uint8Array): Paused | null {
  try {
    const parsed = Payloads.Paused.safeParse(JSON.parse(decoder.decode(value)));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export async function readPaused(coord: Kv, handle: string): Promise<Paused | null> {
  const entry = await coord.get(seatKeys.paused(handle));
  return entry ? decodePaused(entry.value) : null;
}

/**
 * Removes the pause records of seats `kept` says no longer exist (removed from the company, or now human),
 * so a seat added back under the same handle starts unpaused. Answers the handles cleared, each with the
 * pause its record held (null when unreadable).
 */
export async function clearPausesOutside(
  coord: Kv,
  kept: (handle: string) => boolean,
): Promise<Array<{ readonly handle: string; readonly paused: Paused | null }>> {
  const cleared: Array<{ handle: string; paused: Paused | null }> = [];
  for (const key of await coord.keys(seatKeys.paused('*'))) {
    const handle = /^seat\.([^.]+)\.paused$/.exec(key)?.[1];
    if (handle === undefined || kept(handle)) continue;
    const entry = await coord.get(key);
    await coord.delete(key);
    cleared.push({ handle, paused: entry ? decodePaused(entry.value) : null });
  }
  return cleared;
}

/**
 * Every seat's pause record as it stands, then each change (null: resumed). A pause lasts as long as it is
 * kept here; the `agent_paused` event that announced it leaves the 30-day history long before.
 */
export function watchPauses(
  coord: Kv,
  onPause: (handle: string, paused: Paused | null) => void,
): Promise<Subscription> {
  return coord.watch(
    (entry) => {
      const handle = /^seat\.([^.]+)\.paused$/.exec(entry.key)?.[1];
      if (handle !== undefined) onPause(handle, entry.operation === 'put' ? decodePaused(entry.value) : null);
    },
    { key: seatKeys.paused('*') },
  );
}
