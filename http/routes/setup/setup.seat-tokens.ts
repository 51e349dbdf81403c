/**
 * Storing the seat tokens a provision minted: each is sealed, then referenced from its seat in one new
 * revision, a compare-and-set on the revision the pass read (a document that changed during the pass may
 * already give a seat a token, or no longer have it). The seals come first so the revision never references
 * a missing secret; a write that then fails (a lost race, a validation refusal) must not leave them: what
 * this provision sealed is removed or put back as it was, and the answer is the write's coded refusal naming
 * the seats whose tokens were minted at the vendor and are not kept (revoke them there; the pass's steps name
 * them). The log line names the seats and secret names, never a value.
 */
import type { Logger } from 'pino';
import { seatSecretName, withValue, type KindSpec } from '../../../schema/index.js';
import { ApiError } from '../../api-error.js';
import { writeDocument } from './setup.config-write.js';
import type { SetupConfigDeps } from './setup.deps.js';
import { storedValue } from './setup.seal.js';

export interface MintedToken {
  readonly seat: string;
  readonly value: string;
}

interface Sealed {
  readonly name: string;
  /** The store's value before this provision; null when it had none. */
  readonly before: string | null;
}

interface Store {
  readonly spec: KindSpec;
  /** The seat secret name pattern (`SVC_..._{SEAT}_TOKEN`). */
  readonly secretName: string;
  /** The active document, the tokens referenced into it. */
  readonly document: Record<string, unknown>;
  readonly minted: readonly MintedToken[];
  readonly actor: string;
  readonly basisRevisionId: string;
  /** Where a seat's token goes in the document, null when the seat has none. */
  readonly at: (seat: string) => Array<string | number> | null;
}

/** Removes or puts back what this provision sealed (best effort: the store may be failing still). */
async function unsealAll(deps: SetupConfigDeps, log: Logger, store: Store, done: readonly Sealed[]) {
  for (const { name, before } of done) {
    try {
      if (before === null) await deps.unseal(name, store.actor);
      else await deps.seal(name, before, store.actor);
    } catch (error) {
      log.warn(
        { event: 'setup_seat_token_restore_failed', kind: store.spec.key, name, err: error },
        'a seat token sealed by a provision whose revision was not stored could not be removed',
      );
    }
  }
}

/** The failure's coded refusal, saying nothing was kept and which seats' vendor tokens to revoke. */
function notKept(error: unknown, store: Store): unknown {
  if (!(error instanceof ApiError)) return error;
  const seats = store.minted.map((m) => m.seat);
  return new ApiError(error.code, {
    detail:
      `The seat tokens minted for ${seats.join(', ')} were not stored (${error.detail.replace(/\.$/, '')}); ` +
      'none of them stays sealed and no active revision references them.',
    hint:
      `Revoke the ${store.spec.key} tokens minted for ${seats.join(', ')} at the vendor (the pass's steps name ` +
      'them), then provision again.',
    extra: { ...error.extra, unstored_seat_tokens: seats },
    headers: error.headers,
    cause: error,
  });
}

export async function storeMinted(deps: SetupConfigDeps, log: Logger, store: Store): Promise<string | null> {
  const { spec, minted, actor } = store;
  const done: Sealed[] = [];
  try {
    let document = store.document;
    for (const { seat, value } of minted) {
      const name = seatSecretName(store.secretName, seat);
      const before = await storedValue(deps, name);
      await deps.seal(name, value, actor);
      done.push({ name, before });
      const at = store.at(seat);
      if (at !== null) document = withValue(document, at, `\${${name}}`);
    }
    const stored = await writeDocument(deps, {
      document,
      basisRevisionId: store.basisRevisionId,
      actor,
      summary: `setup ${spec.key}: seat tokens for ${minted.map((m) => m.seat).join(', ')}`,
      dryRun: false,
    });
    return stored?.revision_id ?? null;
  } catch (error) {
    // Not coded (a timeout): the revision may still land, so what it references stays sealed.
    if (!(error instanceof ApiError)) throw error;
    await unsealAll(deps, log, store, done);
    log.warn(
      {
        event: 'setup_seat_tokens_not_stored',
        kind: spec.key,
        error: error.code,
        seats: minted.map((m) => m.seat),
        unsealed: done.map((d) => d.name),
      },
      'seat tokens minted by a provision were not stored: revoke them at the vendor',
    );
    throw notKept(error as unknown, store);
  }
}
