/** * Identities of the company document's entities: how a seat, unit, tool server or provider is
 * recognised across revisions (diffs, carried-back unknown keys, restored masks, entity routes).
 */
import { isRecord } from '../json.js';

/**
 * Latin letters (lower case) that no decomposition takes to ASCII, spelled as their languages write them
 * without the letter: dropped, they made `Groß` the handle `gro` and `Søren` `s-ren`.
 */
const SPELLED: Readonly<Record<string, string>> = {
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  ł: 'l',
  đ: 'd',
  ð: 'd',
  þ: 'th',
  ı: 'i',
  ħ: 'h',
  ŧ: 't',
  ŋ: 'ng',
  ĸ: 'k',
};
const UNSPELLED = new RegExp(`[${Object.keys(SPELLED).join('')}]`, 'gu');

/**
 * A seat handle derived from its name: lowercase, accents dropped, the letters above spelled out, runs of
 * other characters one hyphen. Other scripts are not transliterated: such a name needs a written handle.
 */
export function deriveHandle(name: string): string {
  return name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(UNSPELLED, (letter) => SPELLED[letter] ?? '')
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
