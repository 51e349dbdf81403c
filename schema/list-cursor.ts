/**
 * Keyset cursors of the work tracker's and the knowledge base's lists: an opaque token naming the order
 * it was made for, the last row's sort key and that row's unique id. The next page starts strictly after
 * that row, so rows created, moved or removed between two reads never shift a page (an offset would).
 * What a route answers is the token sealed to its list (`sealCursor`): a digest of the token and the list's
 * identity (its route and the filters that define it), so a cursor of another list, or one altered, is
 * refused. It is not a signature (that would need a key every node shares): it catches a cursor sent to the
 * wrong list or changed on the way, not one forged with care, which the routes' row checks narrow further.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';

/** The orders a cursor can be made for; a cursor of one is refused by the others. */
export const ListOrder = {
  WorkNewest: 'work',
  Comments: 'comments',
  Turns: 'turns',
  Inbox: 'inbox',
  PagesTitle: 'pages.title',
  PagesRelevance: 'pages.relevance',
  /** The meaning part of a knowledge base search (after its word hits), by similarity. */
  PagesMeaning: 'pages.meaning',
} as const;
export type ListOrder = (typeof ListOrder)[keyof typeof ListOrder];

const CursorKey = z.union([z.number().finite(), z.string(), z.array(z.string()).max(4)]);
type CursorKey = z.infer<typeof CursorKey>;

const CursorToken = z
  .object({ o: z.string(), k: CursorKey, id: z.string().max(512), f: z.string().max(64).optional() })
  .strict();

/** Where a page ends: the last row's sort key and id (and, for a search, a fingerprint of its words). */
export interface ListPosition<K extends CursorKey> {
  readonly key: K;
  readonly id: string;
  readonly fingerprint?: string;
}

/** The token for the position after `last` in `order` (base64url of a small JSON). */
export function encodeCursor<K extends CursorKey>(order: ListOrder, last: ListPosition<K>): string {
  const body = {
    o: order,
    k: last.key,
    id: last.id,
    ...(last.fingerprint === undefined ? {} : { f: last.fingerprint }),
  };
  return Buffer.from(JSON.stringify(body)).toString('base64url');
}

export type CursorProblem = 'unreadable' | 'other_order';

/** How a cursor does not fit a list, as a refusal says it after the parameter's name. */
export const cursorProblemText = (problem: CursorProblem | 'other_list'): string =>
  problem === 'other_order'
    ? 'was made for another list or order'
    : problem === 'other_list'
      ? 'was made for another list (other filters, item or person) or was altered'
      : 'is not a cursor this list gave';

/**
 * A token read back as a position of `order`, its key checked by `key`; a problem when it is not a
 * token this service made (base64url is lenient, so the text must encode back to itself) or was made
 * for another order.
 */
export function decodeCursor<K extends CursorKey>(
  raw: string,
  order: ListOrder,
  key: z.ZodType<K>,
): ListPosition<K> | CursorProblem {
  const bytes = Buffer.from(raw, 'base64url');
  if (raw.length === 0 || bytes.toString('base64url') !== raw) return 'unreadable';
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString('utf8'));
  } catch {
    return 'unreadable';
  }
  const token = CursorToken.safeParse(json);
  if (!token.success) return 'unreadable';
  if (token.data.o !== order) return 'other_order';
  const k = key.safeParse(token.data.k);
  if (!k.success) return 'unreadable';
  return {
    key: k.data,
    id: token.data.id,
    ...(token.data.f === undefined ? {} : { fingerprint: token.data.f }),
  };
}

/** A sequence or ordinal key: a non-negative integer. */
export const SeqKey = z.number().int().nonnegative();

/** A list's identity: its route and the filters that define it, in a stable form (order of keys aside). */
export function listIdentity(route: string, filters: Readonly<Record<string, unknown>>): string {
  const entries = Object.entries(filters)
    .filter(([, v]) => v !== undefined && v !== null)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify([route, entries]);
}

const SEAL = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{22})$/;
const sealOf = (token: string, list: string): string =>
  createHash('sha256').update(token).update('\n').update(list).digest('base64url').slice(0, 22);

/** The token as a route answers it: bound to `list` (see the file's head). */
export function sealCursor(token: string, list: string): string {
  return `${token}.${sealOf(token, list)}`;
}

/** The token a sealed cursor carries, or `other_list` when it was not sealed to `list` (or was altered). */
export function unsealCursor(raw: string, list: string): { token: string } | 'unreadable' | 'other_list' {
  const m = SEAL.exec(raw);
  if (!m) return 'unreadable';
  return sealOf(m[1]!, list) === m[2] ? { token: m[1]! } : 'other_list';
}
