/** Sends a setup change to the config writer (`Commands.config.write`) and renders its decision. */
import { randomUUID } from 'node:crypto';
import { cutForQuote, knownKeysAt, unknownKeyPaths, type ConfigWrite } from '../../../schema/index.js';
import { ApiError } from '../../api-error.js';
import { parseTagList, strongMatch } from '../../entity-tags.js';
import { sendConfigWrite } from '../config-write.command.js';
import type { Actor } from '../../types.js';
import type { SetupConfigDeps } from './setup.deps.js';

export interface SetupWrite {
  readonly document: unknown;
  readonly basisRevisionId: string;
  readonly ifMatch?: string;
  readonly dryRun: boolean;
  /** The caller as the guard saw them: the revision's `created_by` and `created_by_kind`. */
  readonly actor: Actor;
  readonly summary: string;
}

export type Stored = { revision_id: string; epoch: number; warnings: unknown[] };

export async function writeDocument(deps: SetupConfigDeps, write: SetupWrite): Promise<Stored | null> {
  const command: ConfigWrite = {
    document: write.document,
    basis_revision_id: write.basisRevisionId,
    precondition: {
      ...(write.ifMatch !== undefined ? { if_match: write.ifMatch } : {}),
      if_none_match_any: false,
    },
    rules: 'write',
    dry_run: write.dryRun,
    actor: write.actor,
    source: 'api.setup',
    summary: write.summary,
    // The document is the stored one with setup fields changed: a key this build does not know is a
    // newer build's, kept as it is (write rule 8).
    carried: unknownKeyPaths(write.document, knownKeysAt),
    // The id it tries: an `outcome_unknown` answer names it.
    revision_id: randomUUID(),
  };
  const reply = await sendConfigWrite(deps, command);
  if (reply.outcome === 'valid') return null;
  if (reply.outcome === 'stored') {
    // Read-your-writes: the next setup read on this node shows the new revision.
    await deps.untilEpoch(reply.epoch, 5_000);
    return { revision_id: reply.revision_id, epoch: reply.epoch, warnings: reply.warnings };
  }
  const extra = {
    ...(reply.problems ? { problems: reply.problems } : {}),
    ...(reply.stored_revision_id ? { stored_revision_id: reply.stored_revision_id } : {}),
  };
  if (reply.error === 'no_active_revision') {
    throw new ApiError('no_active_revision', {
      variant: reply.status === 412 ? 'on_if_match' : 'on_write',
      detail: reply.detail,
      extra,
    });
  }
  const code = reply.error === 'revision_advanced' ? 'revision_advanced' : 'validation_error';
  throw new ApiError(code, { detail: reply.detail, extra });
}

/**
 * `if_match` as an ETag or a bare id, or a list of them (any strong one naming the active revision will
 * do; a weak one never matches); checked here too so nothing is sealed for a stale read.
 */
export function checkIfMatch(ifMatch: string | undefined, activeId: string | null): string | undefined {
  if (ifMatch === undefined) return undefined;
  if (activeId === null)
    throw new ApiError('no_active_revision', {
      variant: 'on_if_match',
      hint: 'No revision is active, so none can be matched: store a first document with `PUT /config`, then read the integration again and send the `revision_id` it shows.',
    });
  const list = parseTagList(ifMatch);
  if (list?.any) return '*';
  if (list && strongMatch(list, activeId, (tag, id) => tag.toLowerCase() === id)) return activeId;
  throw new ApiError('revision_advanced', {
    detail: `if_match ${cutForQuote(ifMatch.trim())} does not name the active revision ${activeId}; nothing was stored or sealed`,
    hint: 'Read the integration again and send the revision_id it shows.',
    // Refused before anything was written: no losing revision exists to name, and the winner is not ours.
    extra: { stored_revision_id: null, active_revision_id: activeId },
  });
}
