/**
 * Sealing the credentials of a setup write, after its revision was stored (the revision is stored first so
 * that a write losing the race seals nothing: setup.writes.ts). A seal that fails then (the node answering
 * the store has no keyring, the store is unreachable) must not leave a revision referencing a secret that
 * was never stored: the revision is rolled back (a new one restoring the document read, compare-and-set on
 * ours), the values this write already sealed are put back as they were (setup.put-back.ts: unless another
 * writer stored one since; one that cannot be put back is named in `unrestored_secrets`), and the seal's
 * coded refusal is the answer. Only when the rollback cannot land (another revision followed ours) does the
 * revision stand, and the answer says which credentials are not sealed.
 */
import type { Seal } from '../../../schema/index.js';
import { ApiError } from '../../api-error.js';
import type { ApiRequest } from '../../types.js';
import { writeDocument, type Stored } from './setup.config-write.js';
import type { SetupRouteDeps } from './setup.deps.js';
import {
  putBackAll,
  sealUndoably,
  unacknowledgedSeal,
  UNRESTORED_HINT,
  type Sealed,
} from './setup.put-back.js';

export interface SealOutcome {
  readonly sealed: readonly Seal[];
  /** Credentials the stored revision references that are not in the store (empty unless a seal failed). */
  readonly unsealed: readonly Seal[];
}

interface Write {
  readonly kind: string;
  readonly actor: string;
  /** The document the write read, restored by a rollback; null when nothing was read. */
  readonly document: unknown;
  /** The revision this write stored; null when it changed only the store. */
  readonly stored: Stored | null;
}

/** A new revision restoring the document read, only while ours is still active; its id, null when it did not land. */
async function rollBack(
  deps: SetupRouteDeps,
  req: ApiRequest,
  write: Write,
  stored: Stored,
): Promise<string | null> {
  try {
    const undone = await writeDocument(deps, {
      document: write.document,
      basisRevisionId: stored.revision_id,
      ifMatch: stored.revision_id,
      actor: write.actor,
      summary: `setup ${write.kind}: rolled back, its credentials could not be sealed`,
      dryRun: false,
    });
    return undone?.revision_id ?? null;
  } catch (error) {
    req.log.warn(
      {
        event: 'setup_inputs_rollback_failed',
        kind: write.kind,
        revision_id: stored.revision_id,
        err: error,
      },
      'the revision of a setup write whose credentials were not sealed could not be rolled back',
    );
    return null;
  }
}

/** The seal's failure as a coded refusal; null for a failure that is neither (a bug), passed on as it is. */
const sealRefusal = (error: unknown, seal: Seal): ApiError | null =>
  error instanceof ApiError
    ? error
    : unacknowledgedSeal(error, seal.name, 'send the inputs again once the store answers.');

/** The seal's refusal, saying that nothing stayed changed, or which credentials could not be put back. */
function undoneRefusal(
  failure: unknown,
  seal: Seal,
  write: Write,
  rolledBackBy: string | null,
  unrestored: readonly string[],
): unknown {
  const error = sealRefusal(failure, seal);
  if (error === null) return failure;
  const rolledBack =
    write.stored === null
      ? ''
      : `: revision ${write.stored.revision_id} was rolled back by revision ${rolledBackBy ?? ''}`;
  const undone =
    unrestored.length === 0
      ? `nothing was changed${rolledBack}`
      : `nothing else was changed${rolledBack}, but ${unrestored.join(', ')} could not be put back as ` +
        'before this write (unrestored_secrets)';
  return new ApiError(error.code, {
    detail: `A credential could not be sealed (${error.detail.replace(/\.$/, '')}); ${undone}.`,
    hint: unrestored.length === 0 ? error.hint : `${error.hint} ${UNRESTORED_HINT}`,
    extra: {
      ...error.extra,
      ...(write.stored ? { rolled_back_revision_id: write.stored.revision_id } : {}),
      ...(unrestored.length > 0 ? { unrestored_secrets: unrestored } : {}),
    },
    headers: error.headers,
    cause: error,
  });
}

/** Seals `seals` in order; on a failure undoes the write (see above) and throws, or reports what is unsealed. */
export async function sealAfterStore(
  deps: SetupRouteDeps,
  req: ApiRequest,
  write: Write,
  seals: readonly Seal[],
): Promise<SealOutcome> {
  const done: Sealed[] = [];
  for (const [i, seal] of seals.entries()) {
    try {
      done.push(await sealUndoably(deps, seal.name, seal.value, write.actor));
      continue;
    } catch (error) {
      const rolledBackBy = write.stored === null ? null : await rollBack(deps, req, write, write.stored);
      if (write.stored === null || rolledBackBy !== null) {
        const undo = { kind: write.kind, actor: write.actor, event: 'setup_inputs_restore_failed' };
        throw undoneRefusal(error, seal, write, rolledBackBy, await putBackAll(deps, req.log, undo, done));
      }
      // The revision stands (another followed it): it must not be answered as a failure.
      const unsealed = seals.slice(i);
      req.log.warn(
        {
          event: 'setup_inputs_unsealed',
          kind: write.kind,
          revision_id: write.stored.revision_id,
          unsealed: unsealed.map((s) => s.name),
          err: error,
        },
        'a setup revision was stored but some of its credentials could not be sealed',
      );
      return { sealed: seals.slice(0, i), unsealed };
    }
  }
  return { sealed: seals, unsealed: [] };
}
