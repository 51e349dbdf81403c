/**
 * Sealing the credentials of a setup write, after its revision was stored (the revision is stored first so
 * that a write losing the race seals nothing: setup.writes.ts). A seal that fails then (the node answering
 * the store has no keyring, the store is unreachable) must not leave a revision referencing a secret that
 * was never stored: the revision is rolled back (a new one restoring the document read, compare-and-set on
 * ours), the values this write already sealed are put back as they were, and the seal's coded refusal is
 * the answer. Only when the rollback cannot land (another revision followed ours) does the revision stand,
 * and the answer says which credentials are not sealed.
 */
import type { Seal } from '../../../schema/index.js';
import { ApiError } from '../../api-error.js';
import type { ApiRequest } from '../../types.js';
import { writeDocument, type Stored } from './setup.config-write.js';
import type { SetupConfigDeps, SetupRouteDeps } from './setup.deps.js';

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

/** The store's value of `name` before this write: restored when the write is undone; null when absent. */
export async function storedValue(deps: SetupConfigDeps, name: string): Promise<string | null> {
  const answer = await deps.lookup(name);
  return answer !== null && answer.source === 'store' ? answer.value : null;
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

/** Puts back what this write sealed before the failure (best effort: the store may be failing still). */
async function restore(
  deps: SetupRouteDeps,
  req: ApiRequest,
  write: Write,
  done: ReadonlyArray<{ seal: Seal; before: string | null }>,
): Promise<void> {
  for (const { seal, before } of done) {
    try {
      if (before === null) await deps.unseal(seal.name, write.actor);
      else await deps.seal(seal.name, before, write.actor);
    } catch (error) {
      // Names only: never a value.
      req.log.warn(
        { event: 'setup_inputs_restore_failed', kind: write.kind, name: seal.name, err: error },
        'a credential sealed by a setup write that was undone could not be put back',
      );
    }
  }
}

/** The seal's refusal, saying that nothing stayed changed. */
function undoneRefusal(error: unknown, write: Write, rolledBackBy: string | null): unknown {
  if (!(error instanceof ApiError)) return error;
  const undone =
    write.stored === null
      ? 'nothing was changed'
      : `nothing was changed: revision ${write.stored.revision_id} was rolled back by revision ${rolledBackBy ?? ''}`;
  return new ApiError(error.code, {
    detail: `A credential could not be sealed (${error.detail.replace(/\.$/, '')}); ${undone}.`,
    hint: error.hint,
    extra: { ...error.extra, ...(write.stored ? { rolled_back_revision_id: write.stored.revision_id } : {}) },
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
  const done: Array<{ seal: Seal; before: string | null }> = [];
  for (const [i, seal] of seals.entries()) {
    const before = await storedValue(deps, seal.name);
    try {
      await deps.seal(seal.name, seal.value, write.actor);
      done.push({ seal, before });
      continue;
    } catch (error) {
      const rolledBackBy = write.stored === null ? null : await rollBack(deps, req, write, write.stored);
      if (write.stored === null || rolledBackBy !== null) {
        await restore(deps, req, write, done);
        throw undoneRefusal(error, write, rolledBackBy);
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
      return { sealed: done.map((d) => d.seal), unsealed };
    }
  }
  return { sealed: seals, unsealed: [] };
}
