/**
 * Configuration writes (spec "Configuration routes", write rules 1–10). The gateway reads the request
 * and prepares the whole document — merged, spliced or copied, masks restored, unknown keys carried —
 * then the config writer on the bus decides: validate, store, compare-and-set, activate. Revert and reload,
 * which store a document the node already holds, are in config.restore.ts.
 */
import type { ConfigState } from '../../../projections/index.js';
import {
  cutForQuote,
  carryUnknownKeys,
  depthBeyond,
  entityIdentityMatches,
  findEntity,
  isSecretPath,
  keepStoredHandles,
  knownKeysAt,
  looksLikeTierAFile,
  MAX_RENDER_DEPTH,
  mergePatch,
  patchUnknownKeys,
  restoreMasks,
  spliceEntity,
  tierAFileHint,
  type EntityKind,
  type RevisionRecord,
} from '../../../schema/index.js';
import { ApiError } from '../../api-error.js';
import { assertCompanyWriter } from '../../guard.js';
import type { ApiReply, ApiRequest, RequestHead, RouteDef } from '../../types.js';
import {
  assertRenderable,
  entityKind,
  entityKindsHint,
  isEntityPath,
  openStored,
  requireActive,
  revisionById,
  type ConfigReadDeps,
} from './config.reads.js';
import {
  activeIdOf,
  firstDocumentHint,
  parseDocumentBody,
  readDryRun,
  readPreconditions,
  readSummary,
  type Preconditions,
} from './config.request.js';
import { reload, revert } from './config.restore.js';
import { submit, type ConfigWriteDeps, type Prepared } from './config.submit.js';

export type { ConfigWriteDeps } from './config.submit.js';

const creatable: ReadonlySet<EntityKind> = new Set<EntityKind>(['llm-providers', 'mcp-servers']);

/**
 * The active revision a write builds on; with nothing active, 412 under `If-Match`, else 409. Dropping the
 * header cannot help here (the 409), so the 412 points at a first whole document instead.
 */
function activeForWrite(
  state: ConfigState,
  preconditions: Preconditions,
  what: 'A PATCH' | 'An entity PUT',
): RevisionRecord {
  if (!state.active) {
    const ifMatch = preconditions.ifMatch !== undefined;
    throw new ApiError('no_active_revision', {
      variant: ifMatch ? 'on_if_match' : 'on_write',
      ...(ifMatch ? { hint: firstDocumentHint(what) } : {}),
    });
  }
  return requireActive(state);
}

/** A stored document a PATCH or entity PUT edits in place: it must also be shallow enough to walk. */
function openEditable(deps: ConfigReadDeps, record: RevisionRecord): unknown {
  const document = openStored(deps, record);
  assertRenderable(record, document);
  return document;
}

/**
 * Markers back to stored values, then keys this build does not know carried from the stored document
 * (`carried`: their paths, which validation lets pass).
 */
function reconcileWithStored(
  deps: ConfigReadDeps,
  document: unknown,
  basis: RevisionRecord | null,
  code: 'invalid_body' | 'invalid_patch' | 'validation_error',
): { document: unknown; carried: Array<Array<string | number>> } {
  if (!basis) {
    const restored = restoreMasks(document, null, isSecretPath);
    if (restored.problems.length > 0)
      throw new ApiError(code, { extra: { problems: restored.problems.map(asProblem) } });
    return { document: restored.document, carried: [] };
  }
  const stored = openStored(deps, basis);
  // A stored document too deep to render was never read back, so nothing sent can be its markers;
  // the full PUT that replaces it is taken as written (and nothing is carried from it).
  if (depthBeyond(stored, MAX_RENDER_DEPTH) !== null) return reconcileWithStored(deps, document, null, code);
  // Seats pair with their stored selves by handle, so a handle left out is filled in before anything pairs.
  const restored = restoreMasks(keepStoredHandles(document, stored), stored, isSecretPath);
  if (restored.problems.length > 0)
    throw new ApiError(code, { extra: { problems: restored.problems.map(asProblem) } });
  const carried: Array<Array<string | number>> = [];
  return { document: carryUnknownKeys(restored.document, stored, knownKeysAt, carried), carried };
}

const asProblem = (p: { path: string; segments: ReadonlyArray<string | number>; message: string }) => ({
  path: p.path,
  segments: p.segments,
  kind: 'missing',
  message: p.message,
});

/**
 * `cli` for a write the svc CLI sends (it names itself in User-Agent, `svc-cli/<version>`), else `api`.
 * The source is a note in the revision table, not a credential, so a client naming itself is enough.
 */
function writeSource(req: ApiRequest): 'api' | 'cli' {
  return (req.headers['user-agent'] ?? '').startsWith('svc-cli/') ? 'cli' : 'api';
}

/**
 * What a whole-document PUT derives from: the revision its `If-Match` names when that is a stored one (the
 * client wrote its document from it, so a stale PUT is stored with it as parent and its redaction markers
 * are filled from it), else the active revision.
 */
async function putBasis(state: ConfigState, ifMatch: string | undefined): Promise<RevisionRecord | null> {
  const active = state.active ? requireActive(state) : null;
  if (ifMatch === undefined || ifMatch === '*' || ifMatch.toLowerCase() === active?.revision_id)
    return active;
  try {
    return await revisionById(state, ifMatch);
  } catch (error) {
    // An If-Match naming no stored revision is refused by the writer as stale, against the active one.
    if (error instanceof ApiError && error.code === 'not_found') return active;
    throw error;
  }
}

async function putConfig(deps: ConfigWriteDeps, req: ApiRequest): Promise<ApiReply> {
  assertCompanyWriter(deps.auth, req.actor);
  const dryRun = readDryRun(req);
  const preconditions = readPreconditions(req, activeIdOf(deps.state()));
  const body = parseDocumentBody(req, 'invalid_body');
  const summary = readSummary(req, body.bodySummary, !dryRun);
  const basis = await putBasis(deps.state(), preconditions.ifMatch);
  const { document, carried } = reconcileWithStored(deps, body.document, basis, 'invalid_body');
  try {
    return await submit(deps, req, {
      document,
      carried,
      basis,
      preconditions,
      dryRun,
      summary,
      source: writeSource(req),
      rules: 'write',
      ...(body.yamlText ? { yamlText: body.yamlText } : {}),
    });
  } catch (error) {
    throw sentTierAFile(error, body.document);
  }
}

/**
 * A refusal of a document that is the node's Tier A file gains the hint that says so (tier-a-sent.ts): its
 * unknown fields alone do not say that the whole file is the wrong one.
 */
function sentTierAFile(error: unknown, document: unknown): unknown {
  if (!(error instanceof ApiError) || error.code !== 'validation_error') return error;
  if (!looksLikeTierAFile(document)) return error;
  return new ApiError('validation_error', { detail: error.detail, hint: tierAFileHint, extra: error.extra });
}

const patchTypes = new Set(['', 'application/merge-patch+json', 'application/json']);

async function patchConfig(deps: ConfigWriteDeps, req: ApiRequest): Promise<ApiReply> {
  const mediaType = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (!patchTypes.has(mediaType)) {
    throw new ApiError('unsupported_patch_media_type', {
      detail: `PATCH /config takes a JSON merge patch, not ${cutForQuote(mediaType)}`,
      headers: { 'Accept-Patch': 'application/merge-patch+json' },
    });
  }
  assertCompanyWriter(deps.auth, req.actor);
  const dryRun = readDryRun(req);
  const preconditions = readPreconditions(req, activeIdOf(deps.state()));
  const basis = activeForWrite(deps.state(), preconditions, 'A PATCH');
  const body = parseDocumentBody(req, 'invalid_patch');
  const summary = readSummary(req, body.bodySummary, !dryRun);
  const unknown = patchUnknownKeys(body.document, knownKeysAt);
  if (unknown.length > 0) {
    throw new ApiError('invalid_patch', {
      detail: `The patch names ${unknown.length} unknown key(s).`,
      // Tier A keys (restart-only, in the start file) are told apart as a PUT tells them (sentTierAFile).
      ...(looksLikeTierAFile(body.document) ? { hint: tierAFileHint } : {}),
      extra: {
        problems: unknown.map((u) => ({
          path: u.path,
          segments: u.segments,
          kind: 'unknown_field',
          message: u.message,
        })),
      },
    });
  }
  const merged = mergePatch(openEditable(deps, basis), body.document);
  const { document, carried } = reconcileWithStored(deps, merged, basis, 'invalid_patch');
  return submit(deps, req, {
    document,
    carried,
    basis,
    preconditions,
    dryRun,
    summary,
    source: writeSource(req),
    rules: 'write',
  });
}

/**
 * What an entity PUT decides before its body is read (write rules 6 and 10): the kind, the writer, the
 * preconditions and whether the id is carried. Run as the route's `beforeBody` and again by the handler.
 */
function entityHead(deps: ConfigWriteDeps, req: RequestHead) {
  const kind = entityKind(req);
  assertCompanyWriter(deps.auth, req.actor);
  const preconditions = readPreconditions(req, activeIdOf(deps.state()));
  const id = req.params['id'] ?? '';
  const basis = activeForWrite(deps.state(), preconditions, 'An entity PUT');
  const stored = openEditable(deps, basis);
  const existing = findEntity(stored, kind, id);
  if (preconditions.ifNoneMatchAny && !creatable.has(kind)) {
    throw new ApiError('not_creatable', {
      detail: `${kind} entries are created by editing the full document`,
    });
  }
  if (preconditions.ifNoneMatchAny && existing)
    throw new ApiError('entity_exists', { detail: `${kind} ${cutForQuote(id)} already exists` });
  if (!preconditions.ifNoneMatchAny && !existing) {
    throw new ApiError('no_such_entity', {
      detail: `the active revision carries no ${kind} entry ${cutForQuote(id)}`,
    });
  }
  return { kind, preconditions, id, basis, stored, existing };
}

async function putEntity(deps: ConfigWriteDeps, req: ApiRequest): Promise<ApiReply> {
  const { kind, preconditions, id, basis, stored, existing } = entityHead(deps, req);
  const dryRun = readDryRun(req);
  const body = parseDocumentBody(req, 'invalid_body');
  const summary = readSummary(req, body.bodySummary, !dryRun);
  if (!entityIdentityMatches(kind, id, body.document, existing?.value)) {
    throw new ApiError('identity_mismatch', {
      detail: `the body names another ${kind} entry than ${cutForQuote(id)}`,
    });
  }
  const spliced = spliceEntity(stored, kind, id, body.document);
  const { document, carried } = reconcileWithStored(deps, spliced, basis, 'invalid_body');
  return submitEntity(deps, req, {
    document,
    carried,
    basis,
    preconditions: {
      ...(preconditions.ifMatch !== undefined ? { ifMatch: preconditions.ifMatch } : {}),
      ...(preconditions.ifNoneMatch ? { ifNoneMatch: preconditions.ifNoneMatch } : {}),
      ifNoneMatchAny: false,
      // Create-only: judged again by the writer on whatever revision this write loses to.
      ...(preconditions.ifNoneMatchAny ? { entityAbsent: { kind, id } } : {}),
    },
    dryRun,
    summary,
    source: 'api.entity',
    rules: 'write',
  });
}

/** An entity carrying a field the schema does not know is a bad body, not a bad document (write rule 6). */
async function submitEntity(deps: ConfigWriteDeps, req: ApiRequest, prepared: Prepared): Promise<ApiReply> {
  try {
    return await submit(deps, req, prepared);
  } catch (error) {
    const problems =
      error instanceof ApiError && error.code === 'validation_error' ? error.extra['problems'] : undefined;
    if (Array.isArray(problems) && problems.some((p: { kind?: unknown }) => p.kind === 'unknown_field')) {
      throw new ApiError('invalid_body', {
        detail: 'The entity carries a field the schema does not know.',
        extra: (error as ApiError).extra,
      });
    }
    throw error;
  }
}

/** The one parameter every write reads; any other is refused before anything is read or stored. */
const dry = ['dry_run'];

/** Every config write reads both, against the active revision (config.request.ts). */
const both = ['if-match', 'if-none-match'] as const;

export function configWriteRoutes(deps: ConfigWriteDeps): RouteDef[] {
  const writer = (req: RequestHead): void => assertCompanyWriter(deps.auth, req.actor);
  return [
    // A managed document refuses other credentials before anything is read (rule 10).
    {
      method: 'PUT',
      pattern: '/config',
      query: dry,
      preconditions: both,
      handler: (req) => putConfig(deps, req),
      beforeBody: writer,
    },
    {
      method: 'PATCH',
      pattern: '/config',
      query: dry,
      preconditions: both,
      handler: (req) => patchConfig(deps, req),
      beforeBody: writer,
    },
    {
      method: 'PUT',
      pattern: '/config/:kind/:id',
      query: dry,
      preconditions: both,
      serves: isEntityPath,
      unservedHint: entityKindsHint,
      handler: (req) => putEntity(deps, req),
      beforeBody: (req) => void entityHead(deps, req),
    },
    {
      method: 'POST',
      pattern: '/config/revisions/:id/revert',
      query: dry,
      preconditions: both,
      handler: (req) => revert(deps, req),
      beforeBody: writer,
    },
    {
      method: 'POST',
      pattern: '/config/reload',
      query: dry,
      preconditions: both,
      handler: (req) => reload(deps, req),
    },
  ];
}
