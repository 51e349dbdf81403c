/**
 * Storing the seat tokens a provision minted: each is sealed, then referenced from its seat in one new
 * revision, a compare-and-set on the revision the pass read (a document that changed during the pass may
 * already give a seat a token, or no longer have it). The seals come first so the revision never references
 * a missing secret; a write that then fails (a lost race, a validation refusal) must not leave them: what
 * this provision sealed is removed or put back as it was (setup.put-back.ts: a value another writer stored
 * since is kept; one that cannot be put back is named in `unrestored_secrets`), and the answer is the write's
 * coded refusal naming the seats whose tokens were minted at the vendor and are not kept (revoke them there;
 * the pass's steps name them). The log line names the seats and secret names, never a value.
 */
import type { Logger } from 'pino';
import { seatSecretName, withValue, type KindSpec } from '../../../schema/index.js';
import { ApiError } from '../../api-error.js';
import type { Actor } from '../../types.js';
import { writeDocument } from './setup.config-write.js';
import type { SetupConfigDeps } from './setup.deps.js';
import {
  putBackAll,
  sealUndoably,
  unacknowledgedSeal,
  UNRESTORED_HINT,
  type Sealed,
} from './setup.put-back.js';

export interface MintedToken {
  readonly seat: string;
  readonly value: string;
}

interface Store {
  readonly spec: KindSpec;
  /** The seat secret name pattern (`SVC_..._{SEAT}_TOKEN`). */
  readonly secretName: string;
  /** The active document, the tokens referenced into it. */
  readonly document: Record<string, unknown>;
  readonly minted: readonly MintedToken[];
  readonly actor: Actor;
  readonly basisRevisionId: string;
  /** Where a seat's token goes in the document, null when the seat has none. */
  readonly at: (seat: string) => Array<string | number> | null;
}

/**
 * The failure's coded refusal, saying nothing was kept and which seats' vendor tokens to revoke. A seal
 * the store did not acknowledge (`unacknowledged`) is the exception: that name may hold its token still.
 */
function notKept(
  error: ApiError,
  store: Store,
  unrestored: readonly string[],
  unacknowledged: string | null,
): ApiError {
  const seats = store.minted.map((m) => m.seat);
  const none = unacknowledged === null ? 'none of them stays sealed' : 'no other stays sealed';
  const kept =
    unrestored.length === 0
      ? none
      : `${unrestored.join(', ')} could not be removed or put back (unrestored_secrets)`;
  return new ApiError(error.code, {
    detail:
      `The seat tokens minted for ${seats.join(', ')} were not stored (${error.detail.replace(/\.$/, '')}); ` +
      `${kept} and no active revision references them.`,
    hint:
      `Revoke the ${store.spec.key} tokens minted for ${seats.join(', ')} at the vendor (the pass's steps name ` +
      `them), then provision again.${unacknowledged !== null ? ` ${error.hint}` : ''}` +
      `${unrestored.length > 0 ? ` ${UNRESTORED_HINT}` : ''}`,
    extra: {
      ...error.extra,
      unstored_seat_tokens: seats,
      ...(unrestored.length > 0 ? { unrestored_secrets: unrestored } : {}),
    },
    headers: error.headers,
    cause: error,
  });
}

/**
 * The write's outcome is unknown (the writer did not acknowledge it): the revision may have landed and
 * reference the tokens, so they stay sealed, and the answer says how to find out which it was.
 */
function mayNotBeStored(error: ApiError<'outcome_unknown'>, store: Store): ApiError {
  const seats = store.minted.map((m) => m.seat).join(', ');
  const tried = typeof error.extra['revision_id'] === 'string' ? error.extra['revision_id'] : '';
  return new ApiError('outcome_unknown', {
    detail:
      `The revision ${tried} referencing the seat tokens minted for ${seats} was sent but its outcome is ` +
      'unknown: it may or may not have been stored. The tokens stay sealed under their names in case it was.',
    hint:
      `GET /config/revisions/${tried} answers when it was stored (GET /config tells whether it is active, its ` +
      `seats then reference their tokens). When it was not, revoke the ${store.spec.key} tokens minted for ` +
      `${seats} at the vendor (the pass's steps name them), then provision again: it reads the active ` +
      'revision afresh and mints only for seats that reference no token.',
    extra: { ...error.extra, unstored_seat_tokens: store.minted.map((m) => m.seat) },
    headers: error.headers,
    cause: error,
  });
}

const isRefusal = (error: unknown): error is ApiError => error instanceof ApiError;
const isUnknown = (error: ApiError): error is ApiError<'outcome_unknown'> => error.code === 'outcome_unknown';

/** What the operator learns of a seal left unknown: no revision was sent, so nothing references the name. */
const UNREFERENCED = 'no revision references it, and provisioning again seals a new token under the name.';

export async function storeMinted(deps: SetupConfigDeps, log: Logger, store: Store): Promise<string | null> {
  const { spec, minted, actor } = store;
  const done: Sealed[] = [];
  // The name being sealed: a failure while it is set comes from the store, not from the revision's write.
  let sealing: string | null = null;
  try {
    let document = store.document;
    for (const { seat, value } of minted) {
      const name = seatSecretName(store.secretName, seat);
      sealing = name;
      done.push(await sealUndoably(deps, name, value, actor));
      const at = store.at(seat);
      if (at !== null) document = withValue(document, at, `\${${name}}`);
    }
    sealing = null;
    const stored = await writeDocument(deps, {
      document,
      basisRevisionId: store.basisRevisionId,
      actor,
      summary: `setup ${spec.key}: seat tokens for ${minted.map((m) => m.seat).join(', ')}`,
      dryRun: false,
    });
    return stored?.revision_id ?? null;
  } catch (failure) {
    const unacknowledged = sealing === null ? null : unacknowledgedSeal(failure, sealing, UNREFERENCED);
    const error = unacknowledged ?? failure;
    // Not coded (a bug): passed on as it is.
    if (!isRefusal(error)) throw error;
    if (isUnknown(error) && unacknowledged === null) {
      log.warn(
        {
          event: 'setup_seat_tokens_outcome_unknown',
          kind: spec.key,
          revision_id: error.extra['revision_id'],
          seats: minted.map((m) => m.seat),
          sealed: done.map((d) => d.name),
        },
        'the revision referencing seat tokens minted by a provision may or may not be stored',
      );
      throw mayNotBeStored(error, store);
    }
    // No revision references what was sealed (none was sent, or it was refused): it is put back.
    const undo = { kind: spec.key, actor, event: 'setup_seat_token_restore_failed' };
    const unrestored = await putBackAll(deps, log, undo, done);
    log.warn(
      {
        event: 'setup_seat_tokens_not_stored',
        kind: spec.key,
        error: error.code,
        seats: minted.map((m) => m.seat),
        unsealed: done.map((d) => d.name),
        unrestored,
        ...(unacknowledged !== null ? { unacknowledged: sealing } : {}),
      },
      'seat tokens minted by a provision were not stored: revoke them at the vendor',
    );
    throw notKept(error, store, unrestored, unacknowledged === null ? null : sealing);
  }
}
