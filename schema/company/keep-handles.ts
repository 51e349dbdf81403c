/**
 * A full write from a source file often leaves `handle` out: the stored document has one, written at the
 * first write (normalise.ts). Derived anew, a name whose derivation changed between builds, or a seat whose
 * stored handle was chosen by hand, would read as a new seat — a new agent id, its memory left behind.
 * So a seat sent without `handle` keeps the stored handle of the one stored seat of the same name.
 */
import { setHandleAfterName } from './normalise.js';
import { isRecord, walkDocument } from './walk.js';

const countBy = <T>(items: readonly T[], key: (item: T) => string | null): Map<string, number> => {
  const counts = new Map<string, number>();
  for (const item of items) {
    const k = key(item);
    if (k !== null) counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  return counts;
};

/**
 * `incoming` with each handle-less seat given the handle its namesake has in `stored`, when the name is
 * unambiguous on both sides and no other incoming seat writes that handle itself. Anything else is left as
 * sent (the rules then derive, and judge, as before).
 */
export function keepStoredHandles(incoming: unknown, stored: unknown): unknown {
  if (!isRecord(incoming) || !isRecord(stored)) return incoming;
  const before = walkDocument(stored).seats;
  const storedByName = countBy(before, (s) => s.name);
  const copy = structuredClone(incoming);
  const seats = walkDocument(copy).seats;
  const unhandled = seats.filter((s) => s.raw['handle'] === undefined && s.name !== null);
  const incomingByName = countBy(unhandled, (s) => s.name);
  const written = new Set(
    seats.flatMap((s) => (typeof s.raw['handle'] === 'string' ? [s.raw['handle']] : [])),
  );
  for (const seat of unhandled) {
    const name = seat.name as string;
    if (storedByName.get(name) !== 1 || incomingByName.get(name) !== 1) continue;
    const namesake = before.find((s) => s.name === name);
    const handle = namesake?.raw['handle'];
    if (typeof handle !== 'string' || handle === seat.handle || written.has(handle)) continue;
    setHandleAfterName(seat.raw, handle);
  }
  return copy;
}
