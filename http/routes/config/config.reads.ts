/**
 * Configuration reads (spec "Configuration routes"): the active document, revisions, a diff, the
 * `${VAR}` references and one entity — all from the node's read model, always redacted, never
 * validated (write rule 9). A stored document nested past what the read walkers are proven on (one
 * an earlier release let through) answers 409 `unreadable_revision` rather than overflowing one.
 */
import { stringify } from 'yaml';
import {
  activeRevision,
  listRevisions,
  metaOf,
  readRevision,
  type ConfigState,
} from '../../../projections/index.js';
import {
  cutForQuote,
  depthBeyond,
  diffDocuments,
  findEntity,
  isSealedDocument,
  isSecretPath,
  listReferences,
  MAX_DOCUMENT_DEPTH,
  MAX_RENDER_DEPTH,
  opaqueMarker,
  queryRanges,
  redact,
  type EntityKind,
  type RevisionRecord,
} from '../../../schema/index.js';
import { ApiError } from '../../api-error.js';
import type { ApiReply, ApiRequest, RequestHead, RouteDef } from '../../types.js';
import { etagOf, notModified, revisionTagId } from './config.request.js';
import { intParam } from '../int-query.param.js';
import { singleParam } from '../single.param.js';

export interface ConfigReadDeps {
  readonly state: () => ConfigState;
  /** Opens a stored payload (decrypts a sealed one); throws SealError when this node cannot. */
  readonly openPayload: (record: RevisionRecord) => unknown;
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The payload as a reader may see it: opened and redacted, or an opaque marker when this node cannot open it. */
export function readable(deps: ConfigReadDeps, record: RevisionRecord): unknown {
  const document = tryOpen(deps, record);
  if (document === unopenable) return opaqueMarker(record.payload as { __encrypted__: string });
  assertRenderable(record, document);
  return redact(document, isSecretPath);
}

/** Refuses a stored document nested deeper than the read walkers (redaction, diff, YAML) are proven on. */
export function assertRenderable(record: RevisionRecord, document: unknown): void {
  if (depthBeyond(document, MAX_RENDER_DEPTH) === null) return;
  throw new ApiError('unreadable_revision', {
    detail: `revision ${record.revision_id} nests deeper than ${MAX_RENDER_DEPTH} levels of maps and lists; this node does not render it`,
    hint: `Replace it with a full \`PUT /config\` of a document within ${MAX_DOCUMENT_DEPTH} levels, or revert to an earlier revision.`,
  });
}

const unopenable = Symbol('unopenable');

/** The opened payload, or `unopenable` when it is sealed under a key this node lacks. */
export function tryOpen(deps: ConfigReadDeps, record: RevisionRecord): unknown {
  try {
    return deps.openPayload(record);
  } catch {
    return isSealedDocument(record.payload) ? unopenable : record.payload;
  }
}
export { unopenable };

/** A stored document a read or write must see whole: sealed under a key this node lacks is 409 `unreadable_revision`. */
export function openStored(deps: ConfigReadDeps, record: RevisionRecord, hint?: string): unknown {
  const document = tryOpen(deps, record);
  if (document === unopenable) {
    throw new ApiError('unreadable_revision', {
      detail: `revision ${record.revision_id} is sealed under a key this node lacks`,
      ...(hint !== undefined ? { hint } : {}),
    });
  }
  return document;
}

const diffHint = 'Add the key to `secrets.keys` on this node, or diff other revisions.';

/**
 * The revision diff of the route, the `config_diff` question and `svc config diff`: taken on the opened
 * documents and redacted as shown, so a credential rotation is listed (as markers) and a side this node
 * cannot open is refused rather than diffed as its opaque marker.
 */
export function diffRevisions(deps: ConfigReadDeps, from: RevisionRecord, to: RevisionRecord) {
  const [before, after] = [from, to].map((record) => {
    const document = openStored(deps, record, diffHint);
    assertRenderable(record, document);
    return document;
  });
  const { changes, changes_total } = diffDocuments(before, after, { isSecret: isSecretPath, limit: 500 });
  return { from: from.revision_id, to: to.revision_id, changes, changes_total };
}

export function requireActive(state: ConfigState): RevisionRecord {
  const record = activeRevision(state);
  if (!record) throw new ApiError('no_active_revision');
  return record;
}

/**
 * A stored revision with its document; an old one is read back from the configuration stream, so a
 * stream that cannot answer now is a 503 the client may retry, never a 5xx without a code.
 */
/** `hint`: what the 404 says to check, when the id came from elsewhere than the path (the catalogue's). */
export async function revisionById(state: ConfigState, id: string, hint?: string): Promise<RevisionRecord> {
  const key = uuidPattern.test(id) ? id.toLowerCase() : null;
  let record: RevisionRecord | null = null;
  try {
    record = key === null ? null : await readRevision(state, key);
  } catch (error) {
    throw new ApiError('content_unavailable', {
      detail: `revision ${cutForQuote(id)} is listed but its document cannot be read from the configuration stream now`,
      hint: 'Retry in a few seconds; if it persists, check the bus this node reads (providers.queue).',
      cause: error,
    });
  }
  if (!record)
    throw new ApiError('not_found', { detail: `no revision ${cutForQuote(id)}`, ...(hint ? { hint } : {}) });
  return record;
}

function getConfig(deps: ConfigReadDeps, req: ApiRequest): ApiReply {
  const record = requireActive(deps.state());
  const etag = etagOf(record.revision_id);
  if (notModified(req, record.revision_id)) return { status: 304, headers: { ETag: etag } };
  const format = singleParam(req, 'format') ?? 'json';
  if (format !== 'json' && format !== 'yaml') {
    throw new ApiError('invalid_query', {
      detail: `format must be json or yaml, got ${JSON.stringify(cutForQuote(format))}`,
      hint: 'Use ?format=yaml or leave it out.',
    });
  }
  const document = readable(deps, record);
  if (format === 'yaml') {
    return {
      status: 200,
      headers: { ETag: etag, 'Content-Type': 'application/yaml; charset=utf-8' },
      body: stringify(document),
    };
  }
  return { status: 200, headers: { ETag: etag }, body: document };
}

function getRevisions(deps: ConfigReadDeps, req: ApiRequest): ApiReply {
  const state = deps.state();
  const limit = intParam(req, 'limit', queryRanges.revisionsLimit);
  const offset = intParam(req, 'offset', queryRanges.revisionsOffset);
  return {
    status: 200,
    body: { revisions: listRevisions(state, { limit, offset }), total: state.order.length, limit, offset },
  };
}

async function getRevision(deps: ConfigReadDeps, req: ApiRequest): Promise<ApiReply> {
  const state = deps.state();
  const record = await revisionById(state, req.params['id'] ?? '');
  const meta = metaOf(state, record);
  const tagId = revisionTagId(meta);
  if (notModified(req, tagId)) return { status: 304, headers: { ETag: etagOf(tagId) } };
  return {
    status: 200,
    headers: { ETag: etagOf(tagId) },
    body: { ...meta, payload: readable(deps, record) },
  };
}

async function getDiff(deps: ConfigReadDeps, req: ApiRequest): Promise<ApiReply> {
  const state = deps.state();
  const to = await revisionById(state, req.params['id'] ?? '');
  const against = singleParam(req, 'against') ?? 'active';
  const from =
    against === 'active'
      ? requireActive(state)
      : await revisionById(
          state,
          against,
          'Check ?against=: a revision id from GET /config/revisions, or active (the default).',
        );
  return { status: 200, body: diffRevisions(deps, from, to) };
}

function getReferences(deps: ConfigReadDeps, req: ApiRequest): ApiReply {
  const record = requireActive(deps.state());
  // The references are the active document's: unchanged while it is (write rule 5).
  if (notModified(req, record.revision_id))
    return { status: 304, headers: { ETag: etagOf(record.revision_id) } };
  const document = tryOpen(deps, record);
  if (document !== unopenable) assertRenderable(record, document);
  const references =
    document === unopenable ? [] : listReferences(document).map(({ name, path }) => ({ name, path }));
  return {
    status: 200,
    headers: { ETag: etagOf(record.revision_id) },
    body: { revision_id: record.revision_id, references },
  };
}

export const entityKinds: readonly EntityKind[] = ['roles', 'units', 'llm-providers', 'mcp-servers'];

/** The entity routes serve these kinds only (`/config/revisions/x` is another route's path). */
export const isEntityPath = (params: Readonly<Record<string, string>>): boolean =>
  (entityKinds as readonly string[]).includes(params['kind'] ?? '');

/** The 404 hint of a `/config/{kind}/{id}` path naming no entity kind. */
export const entityKindsHint = `Entity kinds are ${entityKinds.join(', ')}.`;

export function entityKind(req: RequestHead): EntityKind {
  const kind = req.params['kind'] ?? '';
  if (!(entityKinds as readonly string[]).includes(kind)) {
    throw new ApiError('no_route', {
      detail: `${req.method} ${req.path} is not served`,
      hint: entityKindsHint,
    });
  }
  return kind as EntityKind;
}

function getEntity(deps: ConfigReadDeps, req: ApiRequest): ApiReply {
  const kind = entityKind(req);
  const record = requireActive(deps.state());
  const id = req.params['id'] ?? '';
  const document = tryOpen(deps, record);
  if (document !== unopenable) assertRenderable(record, document);
  const found = document === unopenable ? null : findEntity(document, kind, id);
  if (!found)
    throw new ApiError('no_such_entity', {
      detail: `the active revision carries no ${kind} entry ${cutForQuote(id)}`,
    });
  const etag = etagOf(record.revision_id);
  if (notModified(req, record.revision_id)) return { status: 304, headers: { ETag: etag } };
  const body = redact(found.value, (segments) => isSecretPath([...found.segments, ...segments]));
  return { status: 200, headers: { ETag: etag }, body };
}

/**
 * Each route declares the query parameters it reads: any other is 400 `bad_params` naming the one meant, so
 * `?fromat=yaml` is not answered as JSON, nor a misspelt `dry_run` on a write stored (config.writes.ts).
 */
export function configReadRoutes(deps: ConfigReadDeps): RouteDef[] {
  return [
    { method: 'GET', pattern: '/config', query: ['format'], handler: (req) => getConfig(deps, req) },
    {
      method: 'GET',
      pattern: '/config/revisions',
      query: ['limit', 'offset'],
      handler: (req) => getRevisions(deps, req),
    },
    {
      method: 'GET',
      pattern: '/config/revisions/:id',
      query: [],
      handler: (req) => getRevision(deps, req),
    },
    {
      method: 'GET',
      pattern: '/config/revisions/:id/diff',
      query: ['against'],
      handler: (req) => getDiff(deps, req),
    },
    { method: 'GET', pattern: '/config/references', query: [], handler: (req) => getReferences(deps, req) },
    {
      method: 'GET',
      pattern: '/config/:kind/:id',
      query: [],
      serves: isEntityPath,
      unservedHint: entityKindsHint,
      handler: (req) => getEntity(deps, req),
    },
  ];
}
