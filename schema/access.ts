/**
 * Who acts as whom (spec "Authentication" 7, `/access`, `/viewer`): a token is bound to a human seat
 * through the seat's `contact.operator_id`. Read from the active document; contact values are shown
 * as written (a `${VAR}` stays a reference), the operator id is compared once resolved.
 */
import { walkDocument, isRecord } from './company/walk.js';
import type { Resolver } from './env-refs.js';
import { substituteRefs } from './env-refs.js';

/**
 * `bound`: names a configured token (and no other seat claims it); `unknown_token`: names no token;
 * `unset`: a reference that resolves empty; `conflict`: another seat names the same token; `none`:
 * no `operator_id`.
 */
export const BindingState = {
  Bound: 'bound',
  UnknownToken: 'unknown_token',
  Unset: 'unset',
  Conflict: 'conflict',
  None: 'none',
} as const;
export type BindingState = (typeof BindingState)[keyof typeof BindingState];

export interface Person {
  readonly handle: string | null;
  readonly name: string | null;
  readonly unit: string | null;
  readonly email: string | null;
  readonly availability: string | null;
  /** Contact fields as written. */
  readonly contact: Readonly<Record<string, string>>;
  /** `contact.operator_id` resolved; null when absent or empty, and when a `${VAR}` in it resolves to no token id. */
  readonly operator_id: string | null;
  readonly binding: BindingState;
}

const str = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

/** Human seats of a document with their binding to the configured token ids. */
export function peopleOf(document: unknown, tokenIds: readonly string[], resolve: Resolver): Person[] {
  if (!isRecord(document)) return [];
  const known = new Set(tokenIds);
  const humans = walkDocument(document).seats.filter((seat) => seat.kind === 'human');
  const drafts = humans.map((seat) => {
    const contact: Record<string, string> = {};
    const written = isRecord(seat.raw['contact']) ? seat.raw['contact'] : {};
    for (const [field, value] of Object.entries(written))
      if (typeof value === 'string') contact[field] = value;
    const raw = contact['operator_id'];
    const resolved = raw === undefined ? null : substituteRefs(raw.trim(), resolve).trim() || null;
    const binding: BindingState =
      raw === undefined
        ? BindingState.None
        : resolved === null
          ? BindingState.Unset
          : known.has(resolved)
            ? BindingState.Bound
            : BindingState.UnknownToken;
    // A reference that resolves to no token id may have resolved to a secret (a token's value, a stored
    // credential): only a configured id, or what the document itself spells out, is shown.
    const operatorId =
      resolved !== null && (known.has(resolved) || resolved === raw?.trim()) ? resolved : null;
    return {
      handle: seat.handle,
      name: seat.name,
      unit: seat.placement?.name ?? null,
      email: str(seat.raw['email']),
      availability: str(seat.raw['availability']),
      contact,
      operator_id: operatorId,
      binding,
    };
  });
  const claims = new Map<string, number>();
  for (const p of drafts)
    if (p.binding === BindingState.Bound) claims.set(p.operator_id!, (claims.get(p.operator_id!) ?? 0) + 1);
  return drafts.map((p) =>
    p.binding === BindingState.Bound && (claims.get(p.operator_id!) ?? 0) > 1
      ? { ...p, binding: BindingState.Conflict }
      : p,
  );
}

/** The one person a token id acts as, or null (unbound, or claimed by several seats). */
export function personFor(people: readonly Person[], tokenId: string): Person | null {
  return people.find((p) => p.binding === BindingState.Bound && p.operator_id === tokenId) ?? null;
}
