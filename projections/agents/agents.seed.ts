/** The boot seed's bound on agent events (rule 2) and the seat an event concerns. */
import type { EventRecord } from '../../schema/index.js';
import { instantMs } from '../time/instants.js';

/** The seat an event concerns: the record's `agent_id` (its handle), or a sandbox run's handle. */
export function handleOf(e: EventRecord): string | null {
  if (e.agent_id) return e.agent_id;
  const h = (e.payload as { agent_handle?: unknown }).agent_handle;
  return typeof h === 'string' && h !== '' ? h : null;
}

/**
 * Boot seeding bound (rule 2): of the seeded agent events keep, per seat, those of its newest three
 * turns (by the latest instant seen in each turn) plus events that belong to no turn.
 */
export function seedBound(records: readonly EventRecord[], turnsPerSeat = 3): EventRecord[] {
  const latest = new Map<string, Map<string, number>>();
  const turnOf = (e: EventRecord): string | null => {
    const t = (e.payload as { turn_id?: unknown }).turn_id;
    return typeof t === 'string' && t !== '' ? t : null;
  };
  for (const e of records) {
    const handle = handleOf(e);
    const turn = turnOf(e);
    if (handle === null || turn === null) continue;
    const turns = latest.get(handle) ?? new Map<string, number>();
    latest.set(handle, turns);
    turns.set(turn, Math.max(turns.get(turn) ?? -Infinity, instantMs(e.timestamp) ?? -Infinity));
  }
  const kept = new Map<string, Set<string>>();
  for (const [handle, turns] of latest) {
    const newest = [...turns]
      .sort((a, b) => b[1] - a[1])
      .slice(0, turnsPerSeat)
      .map(([t]) => t);
    kept.set(handle, new Set(newest));
  }
  return records.filter((e) => {
    const handle = handleOf(e);
    const turn = turnOf(e);
    return handle === null || turn === null || (kept.get(handle)?.has(turn) ?? false);
  });
}
