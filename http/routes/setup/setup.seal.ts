/**
 * Sealing the credentials of a setup write, after its revision was stored (the revision is stored first so
 * that a write losing the race seals nothing: setup.writes.ts). A seal that fails then (the node answering
 * the store has no keyring, the store is unreachable) must not leave a revision referencing a secret that
 * was never stored: the revision is rolled back (a new one restoring the document read, compare-and-set on
 * ours), the values this write already sealed are put back as they were (setup.put-back.ts: unless another
 * writer stored one since; one that cannot be put back is named in `unrestored_secrets`), and the seal's
 * coded refusal is the answer. Only when the rollback cannot land (another revision followed ours) does the
 * revision stand, and the answer says which credentials are not sealed. A rollback sent without an answer
 * leaves both open: the answer is `outcome_unknown` naming the rollback's revision, and nothing is put back.
 */
import type { Seal } from '../../../schema/index.js';
import { ApiError } from '../../api-error.js';
import type { Actor, ApiRequest } from '../../types.js';
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
  readonly actor: Actor;
  /** The document the write read, restored by a rollback; null when nothing was read. */
  readonly document: unknown;
  /** The revision this write stored; null when it changed only the store. */
  readonly stored: Stored | null;
}

/** How a rollback went: its revision landed, or was sent without an answer (`unknown`); null: it did not land. */
type RollBack = { readonly outcome: 'landed' | 'unknown'; readonly revisionId: string } | null;

/** A new revision restoring the document read, only while ours is still active. */
async function rollBack(
  deps: SetupRouteDeps,
  req: ApiRequest,
  write: Write,
  stored: Stored,
): Promise<RollBack> {
  try {
    const undone = await writeDocument(deps, {
      document: write.document,
      basisRevisionId: stored.revision_id,
      ifMatch: stored.revision_id,
      actor: write.actor,
      summary: `setup ${write.kind}: rolled back, its credentials could not be sealed`,
      dryRun: false,
    });
    return undone === null ? null : { outcome: 'landed', revisionId: undone.revision_id };
  } catch (error) {
    const tried = error instanceof ApiError ? error.extra['revision_id'] : undefined;
    if (error instanceof ApiError && error.code === 'outcome_unknown' && typeof tried === 'string')
      return { outcome: 'unknown', revisionId: tried };
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

/** How a credential is named in an answer (`sealed[]`, `unsealed[]`): never its value. */
export const namedSeal = (s: Seal) => ({ field: s.field, secret_name: s.name, generated: s.generated });

/**
 * The rollback was sent but not acknowledged: the write's revision may stand, referencing the credentials
 * not sealed, or not. What was sealed stays (the revision may reference it); the answer names the
 * rollback's revision to check and what to do either way.
 */
function rollbackUnknown(
  error: ApiError,
  stored: Stored,
  rollback: string,
  seals: { readonly sealed: readonly Seal[]; readonly unsealed: readonly Seal[] },
): ApiError {
  const names = (list: readonly Seal[]) => list.map((s) => s.name).join(', ');
  const sealed = seals.sealed.length === 0 ? '' : ` what it sealed (${names(seals.sealed)})`;
  return new ApiError('outcome_unknown', {
    detail:
      `A credential could not be sealed (${error.detail.replace(/\.$/, '')}); the rollback of revision ` +
      `${stored.revision_id}, revision ${rollback}, was sent but not acknowledged: it may or may not have been ` +
      `stored.${sealed === '' ? '' : `${sealed} stays sealed in case it was not.`}`,
    hint:
      `GET /config/revisions/${rollback} answers when it was stored (GET /config tells whether it is active). ` +
      `When it was, the write is undone${sealed === '' ? '' : ` except${sealed}: check it with GET /secrets/{name}`}; ` +
      `when it was not, revision ${stored.revision_id} stands without ${names(seals.unsealed)} (unsealed): ` +
      'send the inputs again.',
    extra: {
      ...error.extra,
      revision_id: rollback,
      rolled_back_revision_id: stored.revision_id,
      unsealed: seals.unsealed.map(namedSeal),
    },
    cause: error,
  });
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
  // An unacknowledged seal may have changed its own name: that one is not promised unchanged.
  const other = 'unacknowledged_secret' in error.extra ? 'else ' : '';
  const undone =
    unrestored.length === 0
      ? `nothing ${other}was changed${rolledBack}`
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
      const rollback = write.stored === null ? null : await rollBack(deps, req, write, write.stored);
      if (write.stored !== null && rollback?.outcome === 'unknown') {
        const refusal = sealRefusal(error, seal);
        if (refusal === null) throw error;
        const sealed = seals.slice(0, i);
        req.log.warn(
          {
            event: 'setup_inputs_rollback_unknown',
            kind: write.kind,
            revision_id: write.stored.revision_id,
            rollback_revision_id: rollback.revisionId,
            sealed: sealed.map((s) => s.name),
            unsealed: seals.slice(i).map((s) => s.name),
            err: error,
          },
          'the rollback of a setup write whose credentials were not sealed may or may not be stored',
        );
        throw rollbackUnknown(refusal, write.stored, rollback.revisionId, {
          sealed,
          unsealed: seals.slice(i),
        });
      }
      const rolledBackBy = rollback?.revisionId ?? null;
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
