/**
 * The normalised document a valid write stores. It keeps the operator's key order and values and
 * changes only what the spec defines as normal form:
 *  1. a seat without `handle` gets the handle derived from its name, written right after `name`
 *     (pinning the durable agent id: a later rename no longer strands the agent's memory);
 *  2. contact values are trimmed;
 *  3. literal `codehost_a_login`, `codehost_b_username` and `tracker_b_user_id` are lowercased
 *     (a `${VAR}` reference is left exactly as written: variable names are case-sensitive).
 * No defaults are filled in: an absent field stays absent, so reads show what was written.
 */
import { deriveHandle } from '../document/identity.js';
import { hasRef } from './fields.js';
import { lowercasedContacts } from './seat.schema.js';
import { isRecord, walkDocument, type Json } from './walk.js';

/** Writes `handle` into the seat right after `name`, in place, so the parent list keeps its order. */
export function setHandleAfterName(seat: Json, handle: string): void {
  const entries = Object.entries(seat);
  for (const key of Object.keys(seat)) delete seat[key];
  for (const [key, value] of entries) {
    if (key === 'handle') continue;
    seat[key] = value;
    if (key === 'name') seat['handle'] = handle;
  }
}

export function normaliseCompany(doc: Json): Json {
  const copy = structuredClone(doc);
  for (const seat of walkDocument(copy).seats) {
    const contact = seat.raw['contact'];
    if (isRecord(contact)) {
      for (const [field, value] of Object.entries(contact)) {
        if (typeof value !== 'string') continue;
        const trimmed = value.trim();
        contact[field] = lowercasedContacts.has(field) && !hasRef(trimmed) ? trimmed.toLowerCase() : trimmed;
      }
    }
    if (seat.raw['handle'] === undefined && typeof seat.raw['name'] === 'string') {
      setHandleAfterName(seat.raw, deriveHandle(seat.raw['name']));
    }
  }
  return copy;
}
