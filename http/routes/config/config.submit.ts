/**
 * The last step of every configuration write: the gateway's own refusals of the prepared document
 * (nesting, the node's Tier A), then the command to the config writer on the bus and its decision
 * rendered as the spec's answer.
 */
import { randomUUID } from 'node:crypto';
import type { Bus } from '../../../bus/index.js';
import {
  nestingProblem,
  type ConfigWriteReply,
  type ConfigWrite,
  type RevisionRecord,
} from '../../../schema/index.js';
import { ApiError } from '../../api-error.js';
import type { ApiReply, ApiRequest, AuthSettings } from '../../types.js';
import { sendConfigWrite } from '../config-write.command.js';
import type { ConfigReadDeps } from './config.reads.js';
import type { Preconditions } from './config.request.js';

export interface ConfigWriteDeps extends ConfigReadDeps {
  /** Resolves once the read model shows `epoch` (or later) active; false after the timeout. */
  readonly untilEpoch: (epoch: number, timeoutMs: number) => Promise<boolean>;
  readonly bus: Bus;
  readonly auth: AuthSettings;
  /** Problems the answering node's own Tier A finds in a runnable document (write rule 9). */
  readonly tierAProblems: (document: unknown) => ReadonlyArray<Record<string, unknown>>;
  readonly writeTimeoutMs?: number;
}

export interface Prepared {
  readonly document: unknown;
  /** Paths of keys a newer build wrote that the document keeps (write rule 8). */
  readonly carried: ReadonlyArray<ReadonlyArray<string | number>>;
  readonly basis: RevisionRecord | null;
  readonly preconditions: Preconditions;
  readonly dryRun: boolean;
  readonly summary: string;
  readonly source: ConfigWrite['source'];
  readonly rules: ConfigWrite['rules'];
  readonly yamlText?: string;
}

/** Sends the prepared write to the config writer and renders its decision. */
export async function submit(deps: ConfigWriteDeps, req: ApiRequest, prepared: Prepared): Promise<ApiReply> {
  // A document past the nesting limit is never sent on: serialising it could overflow, and the
  // writer would refuse it with this same problem.
  const tooDeep = nestingProblem(prepared.document, prepared.yamlText);
  if (tooDeep !== null) {
    throw new ApiError('validation_error', {
      detail: 'The document nests too deeply.',
      extra: { problems: [tooDeep] },
    });
  }
  if (prepared.rules === 'runnable') {
    const problems = deps.tierAProblems(prepared.document);
    if (problems.length > 0)
      throw new ApiError('validation_error', {
        detail: 'The document cannot run on this node.',
        extra: { problems },
      });
  }
  const command: ConfigWrite = {
    document: prepared.document,
    basis_revision_id: prepared.basis?.revision_id ?? null,
    precondition: {
      ...(prepared.preconditions.ifMatch !== undefined ? { if_match: prepared.preconditions.ifMatch } : {}),
      if_none_match_any: prepared.preconditions.ifNoneMatchAny,
      ...(prepared.preconditions.ifNoneMatch
        ? { if_none_match: [...prepared.preconditions.ifNoneMatch] }
        : {}),
      ...(prepared.preconditions.entityAbsent
        ? { if_entity_absent: { ...prepared.preconditions.entityAbsent } }
        : {}),
    },
    rules: prepared.rules,
    dry_run: prepared.dryRun,
    // With the guard off the actor is anonymous (spec "Authentication" 5): its revisions say so.
    actor: { id: req.actor?.id ?? 'anonymous', kind: req.actor?.kind ?? 'anonymous' },
    source: prepared.source,
    summary: prepared.summary,
    ...(prepared.yamlText !== undefined ? { yaml_text: prepared.yamlText } : {}),
    ...(prepared.carried.length > 0 ? { carried: prepared.carried.map((path) => [...path]) } : {}),
    revision_id: randomUUID(),
  };
  const reply = await sendConfigWrite(deps, command);
  switch (reply.outcome) {
    case 'valid':
      return {
        status: 200,
        body: {
          valid: true,
          base_revision_id: reply.base_revision_id,
          warnings: reply.warnings,
          derived: reply.derived,
        },
      };
    case 'stored':
      // Read-your-writes: answer once this node's read model shows the new revision active.
      await deps.untilEpoch(reply.epoch, 5_000);
      return {
        status: 201,
        body: {
          revision_id: reply.revision_id,
          epoch: reply.epoch,
          warnings: reply.warnings,
          derived: reply.derived,
        },
      };
    case 'refused':
      throw refusal(reply);
  }
}

function refusal(reply: Extract<ConfigWriteReply, { outcome: 'refused' }>): ApiError {
  const extra = {
    ...(reply.problems ? { problems: reply.problems } : {}),
    ...(reply.derived !== undefined ? { derived: reply.derived } : {}),
    // Every revision_advanced names the revision it stored (null: a dry run stored none); a create-only
    // write (document or entity) that lost the race names the one it stored inactive.
    ...(reply.error === 'revision_advanced' ? { stored_revision_id: reply.stored_revision_id ?? null } : {}),
    ...((reply.error === 'already_configured' || reply.error === 'entity_exists') && reply.stored_revision_id
      ? { stored_revision_id: reply.stored_revision_id }
      : {}),
  };
  if (reply.error === 'no_active_revision') {
    return new ApiError('no_active_revision', {
      variant: reply.status === 412 ? 'on_if_match' : 'on_write',
      detail: reply.detail,
      extra,
    });
  }
  const known = [
    'conflicting_preconditions',
    'already_configured',
    'entity_exists',
    'revision_advanced',
    'validation_error',
  ] as const;
  const code = known.find((c) => c === reply.error) ?? 'validation_error';
  return new ApiError(code, { detail: reply.detail, extra });
}
