/**
 * Undoing the seals of a setup write that did not stand (setup.seal.ts, setup.seat-tokens.ts): each name
 * goes back to the value it held before the write, or is removed when it held none. Each put-back is a
 * compare-and-set on the write's own seal, so a value another writer stored under the name meanwhile is
 * kept, not overwritten with an older one. A put-back that fails (the store may be failing still) is
 * logged and its name returned for the answer; names only, never a value.
 */
import type { Logger } from 'pino';
import { BusError } from '../../../bus/index.js';
import { ApiError } from '../../api-error.js';
import type { Actor } from '../../types.js';
import type { SetupConfigDeps } from './setup.deps.js';

/** One seal of the write: what the store held before it (null: nothing) and the revision it landed at. */
export interface Sealed {
  readonly name: string;
  readonly before: string | null;
  readonly revision: number;
}

/** The store's value of `name` before this write: restored when the write is undone; null when absent. */
async function storedValue(deps: SetupConfigDeps, name: string): Promise<string | null> {
  const answer = await deps.lookup(name);
  return answer !== null && answer.source === 'store' ? answer.value : null;
}

/** Seals `value` under `name`, remembering what it replaces so that it can be put back. */
export async function sealUndoably(
  deps: SetupConfigDeps,
  name: string,
  value: string,
  actor: Actor,
): Promise<Sealed> {
  const before = await storedValue(deps, name);
  return { name, before, revision: await deps.seal(name, value, actor) };
}

/**
 * A seal the store did not acknowledge (its server lost: a bus error) as the coded refusal naming the
 * secret that may or may not hold the new value, `then` saying what to do next; null for any other failure.
 */
export function unacknowledgedSeal(
  error: unknown,
  name: string,
  then: string,
): ApiError<'outcome_unknown'> | null {
  if (!(error instanceof BusError)) return null;
  return new ApiError('outcome_unknown', {
    detail: `${name} was sent to the secret store but not acknowledged: it may or may not hold the new value`,
    hint: `GET /secrets/${name} shows when it was last written; ${then}`,
    extra: { unacknowledged_secret: name },
    cause: error,
  });
}

/** What the operator does about the names in `unrestored_secrets`. */
export const UNRESTORED_HINT =
  'The store did not take back the names in unrestored_secrets: check each with GET /secrets/{name} and set ' +
  'or delete it as it should be.';

/** Puts back each of `done`; the names that could not be put back (the answer names them). */
export async function putBackAll(
  deps: SetupConfigDeps,
  log: Logger,
  undo: { readonly kind: string; readonly actor: Actor; readonly event: string },
  done: readonly Sealed[],
): Promise<string[]> {
  const unrestored: string[] = [];
  for (const { name, before, revision } of done) {
    try {
      if (!(await deps.putBack(name, before, undo.actor, revision))) {
        log.info(
          { event: 'setup_secret_kept', kind: undo.kind, name },
          'a value stored under a name after this setup write sealed it is kept, not put back',
        );
      }
    } catch (error) {
      unrestored.push(name);
      log.warn(
        { event: undo.event, kind: undo.kind, name, err: error },
        'a credential sealed by a setup write that was undone could not be put back',
      );
    }
  }
  return unrestored;
}
