/**
 * Parameters and bodies of the `/work` routes: limits clamped or refused as the spec says, positions
 * parsed, JSON bodies validated, and who the caller is (the person a token is bound to, else the token).
 */
import {
  canonicalId,
  errorCatalogue,
  itemByRef,
  ITEM_REF_MAX,
  noWorkItem,
  parseInstant,
  parsePosition,
  PERSON_HANDLE,
  personFor,
  quotedRef,
  SEARCH_TEXT_MAX,
  WORK_STREAM,
  type ErrorCode,
  type Person,
  type WorkState,
  type RetentionReply,
  type WorkWriteReply,
} from '../../../schema/index.js';
import { ApiError } from '../../api-error.js';
import type { ApiRequest } from '../../types.js';
import { singleParam } from '../single.param.js';

export function badParams(detail: string): ApiError {
  return new ApiError('bad_params', { detail });
}

/** The one value of a `/work` parameter: a repeat is 400 `bad_params`, the family's code for a bad value. */
export const workParam = (req: ApiRequest, name: string): string | null =>
  singleParam(req, name, 'bad_params');

/**
 * A log position `<stream>@<generation>:<sequence>` parameter, as the sequence after which to read. A
 * position of another generation than the log's (`generation`, moved by a reanchor) is refused.
 */
export function positionParam(req: ApiRequest, name: string, generation: number): number | null {
  const raw = workParam(req, name);
  if (raw === null || raw === '') return null;
  const position = parsePosition(raw);
  if (!position || position.stream !== WORK_STREAM)
    throw badParams(`${name} must be a position ${WORK_STREAM}@<generation>:<sequence>`);
  if (position.generation !== generation)
    throw badParams(`${name} is from generation ${position.generation}; the work log is at ${generation}`);
  return position.seq;
}

/** An RFC 3339 instant parameter, as epoch milliseconds. */
export function instantParam(req: ApiRequest, name: string): number | null {
  const raw = workParam(req, name);
  if (raw === null || raw === '') return null;
  // Strict RFC 3339: `Date.parse` would roll `2026-02-30` over to March 2 and read a stamp without an
  // offset in the node's own time zone.
  const instant = parseInstant(raw);
  if (instant === null) throw badParams(`${name} must be an RFC 3339 instant`);
  return instant.ms;
}

export function boolParam(req: ApiRequest, name: string): boolean | null {
  const raw = workParam(req, name);
  if (raw === null || raw === '') return null;
  if (raw !== 'true' && raw !== 'false') throw badParams(`${name} must be true or false`);
  return raw === 'true';
}

export function enumParam<T extends string>(
  req: ApiRequest,
  name: string,
  allowed: readonly T[],
  fallback: T,
): T {
  const raw = workParam(req, name);
  if (raw === null || raw === '') return fallback;
  if (!(allowed as readonly string[]).includes(raw))
    throw badParams(`${name} must be one of ${allowed.join(', ')}`);
  return raw as T;
}

/** A comma-separated list parameter (repeats also accepted). */
export function listParam(req: ApiRequest, name: string): string[] {
  return req.query
    .getAll(name)
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

export const textParam = (req: ApiRequest, name: string): string | null => {
  const raw = workParam(req, name);
  return raw === null || raw === '' ? null : raw;
};

/**
 * A search text (`q`): at most 500 characters (code points), as `/pages?q=` takes, so a read never
 * matches kilobytes of text against every item; longer is 400 `bad_params`.
 */
export function searchParam(req: ApiRequest, name = 'q'): string | null {
  const q = textParam(req, name);
  if (q !== null && [...q].length > SEARCH_TEXT_MAX)
    throw new ApiError('bad_params', {
      detail: `\`${name}\` needs at most ${SEARCH_TEXT_MAX} characters.`,
      hint: `Search with fewer words, or leave \`${name}\` out to read without a search.`,
    });
  return q;
}

/** The person the caller's token is bound to, or null. */
export function callerPerson(req: ApiRequest, people: readonly Person[]): Person | null {
  return req.actor?.kind === 'operator' ? personFor(people, req.actor.id) : null;
}

/**
 * The operator-only writes (a purge, a file write): a token is needed; with the guard disabled the caller
 * is anonymous, no operator, and is refused 403 `guard_disabled` as the retention routes are.
 */
export function operatorOnly(req: ApiRequest, what: string): void {
  if (req.actor?.kind === 'anonymous')
    throw new ApiError('guard_disabled', {
      detail: `${what} are operator-only: with the guard disabled (api.auth.disabled) the caller is anonymous`,
    });
  if (req.actor?.kind !== 'operator')
    throw new ApiError('invalid_token', { detail: `${what} need an operator token` });
}

/** Who a change is recorded as made by: the bound person's handle, else the token id. */
export function actorOf(req: ApiRequest, people: readonly Person[]): string {
  return callerPerson(req, people)?.handle ?? req.actor?.id ?? 'anonymous';
}

/** Why a personal route does not know whose work to answer: what the caller sent (or did not). */
function noPersonDetail(req: ApiRequest): string {
  if (req.actor === null)
    return 'no credential was sent: call with a token bound to your seat (contact.operator_id), or with an operator token and ?handle= naming the person';
  if (req.actor.kind === 'anonymous')
    return 'the guard is disabled, so the caller is no seat: name the person with ?handle=';
  return 'this token is bound to no seat: name the person with ?handle=, or bind the token to your seat (contact.operator_id)';
}

/**
 * A person named in a path, `?handle=`/`?viewer=` or a body: a seat handle, in any case (`Ada` is `ada`,
 * as a mention is read). Outside the handle grammar it names no one and is 400 `bad_params` here, rather
 * than an empty person on a read or a command the writer cannot carry on a write.
 */
function handleParam(raw: string): string {
  const handle = raw.toLowerCase();
  if (!PERSON_HANDLE.test(handle))
    throw badParams(`handle ${quoted(raw)} is not a seat handle ([a-z0-9][a-z0-9-]*, at most 64 characters)`);
  return handle;
}

/**
 * Spec "Authentication" 7: the personal routes answer the caller's own seat, another person's only to an
 * operator (a token that is not bound to someone else's seat counts; a missing credential does not).
 */
export function personalHandle(req: ApiRequest, people: readonly Person[], named: string | null): string {
  const given = named === null ? null : handleParam(named);
  const own = callerPerson(req, people)?.handle ?? null;
  if (given === null || given === own) {
    if (own === null) throw badParams(noPersonDetail(req));
    return own;
  }
  if (req.actor === null)
    throw new ApiError('invalid_token', {
      detail: "another person's work is answered only to an operator token",
    });
  return given;
}

/** A refused write as its API error; an ok one passes through. */
export function refusal<R extends WorkWriteReply | RetentionReply>(reply: R): Extract<R, { outcome: 'ok' }> {
  if (reply.outcome === 'ok') return reply as Extract<R, { outcome: 'ok' }>;
  const code = (reply.error in errorCatalogue ? reply.error : 'validation_error') as ErrorCode;
  const problems = reply.problems.map((p) => ({
    path: p.path,
    segments: p.path === '' ? [] : p.path.split('.').map((s) => (/^\d+$/.test(s) ? Number(s) : s)),
    kind: p.kind ?? 'invalid',
    message: p.message,
  }));
  throw new ApiError(code, {
    detail: reply.detail,
    // The catalogue's hint speaks of config revisions; here a file version or the log's generation moved.
    ...(code === 'revision_advanced' && {
      hint: 'Read it again (an item or a file answers its version in `ETag`, the log its `generation`) and repeat the write against what you read.',
    }),
    // The catalogue's hint is the fleet removal's, whose `?force=true` an eviction does not take.
    ...(code === 'member_live' && {
      hint: 'Stop the node, or wait until it lags; `GET /work/retention` shows each holder `live` and `current`. Then evict it again.',
    }),
    ...(problems.length > 0 ? { extra: { problems } } : {}),
  });
}

const REF_MAX = ITEM_REF_MAX;

/** A reference as a detail quotes it: a long one is cut, so a refusal does not echo kilobytes back. */
export const quoted = quotedRef;

// Worded as the writer words its own 404 (`noWorkItem`), so a read and a write of one id say the same.
const noItem = (ref: string) =>
  new ApiError('not_found', { detail: noWorkItem(ref), hint: 'List items with GET /work.' });

/** The item `{id}` names (its key or its id), or 404 `not_found`. */
export function itemParam(state: WorkState, ref: string) {
  const item = itemByRef(state, ref);
  if (!item) throw noItem(ref);
  return item;
}

/**
 * The `{id}` of an item write: longer than any key or id is 404 `not_found` here, as a read answers,
 * rather than a command the writer cannot carry. The writer decides the rest in log order.
 */
export function itemRef(ref: string): string {
  if (ref.length > REF_MAX) throw noItem(ref);
  return ref;
}

/** A retention holder's `{node}` in a path: one longer than any holder name names none (404 `not_found`). */
export function holderRef(ref: string): string {
  if (ref.length > REF_MAX)
    throw new ApiError('not_found', {
      detail: `no retention holder ${quoted(ref)}`,
      hint: 'GET /work/retention lists the nodes and holders.',
    });
  return ref;
}

/** A saved or pinned view's `{id}` in a path: one longer than any view id names none (404 `not_found`). */
export function viewRef(ref: string): string {
  if (ref.length > REF_MAX)
    throw new ApiError('not_found', {
      detail: `no view ${quoted(ref)}`,
      hint: 'List views with GET /work/views and GET /work/views/saved.',
    });
  // A built-in view's project key in any case names the project (`eng:board` is `ENG:board`).
  const builtin = /^([a-z][a-z0-9]{1,9}):(board|list|mine)$/i.exec(ref);
  return builtin ? `${builtin[1]!.toUpperCase()}:${builtin[2]!}` : canonicalId(ref);
}
