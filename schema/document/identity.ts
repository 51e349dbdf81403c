/** * Identities of the company document's entities: how a seat, unit, tool server or provider is
 * recognised across revisions (diffs, carried-back unknown keys, restored masks, entity routes).
 */
import { isRecord } from '../json.js';

/** A seat handle derived from its name: lowercase, runs of other characters become one hyphen. */
export function deriveHandle(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** Handle grammar (spec "Seat"). */
export const handlePattern = /^[a-z0-9][a-z0-9-]*$/;

/** A seat's identity: its handle, else the handle derived from its name; null when it has neither. */
export function seatIdentity(seat: unknown): string | null {
  if (!isRecord(seat)) return null;
  if (typeof seat['handle'] === 'string' && seat['handle'] !== '') return seat['handle'];
  if (typeof seat['name'] === 'string') return deriveHandle(seat['name']) || null;
  return null;
}

/** Units and tool servers are identified by `name`. */
export function nameIdentity(entry: unknown): string | null {
  return isRecord(entry) && typeof entry['name'] === 'string' ? entry['name'] : null;
}
