/**
 * Project files (ops/work-tracker.md "Files"): the listing, and one file's bytes read, written and
 * deleted with its version as `ETag` and `If-Match` naming the version a write replaces. Bytes go to the
 * file store first, then the version is appended to the work log, so a listed version always had its
 * bytes written; one whose bytes cannot be read now answers 503 `content_unavailable`. A read streams the
 * bytes chunk by chunk from the store: a chunk found missing once the answer started cuts the connection.
 */
import { createHash, randomUUID } from 'node:crypto';
import { fileRefusal, queryRanges, type WorkFile } from '../../../schema/index.js';
import { ApiError } from '../../api-error.js';
import { StreamedBody } from '../../reply.js';
import type { ApiReply, ApiRequest, RouteDef } from '../../types.js';
import type { FileBlobs } from './work.blobs.js';
import type { WorkRouteDeps } from './work.deps.js';
import { holdsVersion, noneMatchVersion, versioned, versionTag } from '../if-match.param.js';
import { actorOf, badParams, boolParam, operatorOnly, quoted, refusal, textParam } from './work.params.js';
import { opIdOf } from '../op-id.param.js';
import { intParam } from '../int-query.param.js';

const READ_BACK_MS = 10_000;
const CONTENT_TYPE_MAX = 255;

const etag = (file: WorkFile): string => `"${file.version}"`;

/** The file's bytes as the store gives them; a read that fails is `content_unavailable`. */
async function* contentOf(blobs: FileBlobs, file: WorkFile): AsyncGenerator<Uint8Array> {
  try {
    yield* blobs.stream(file.sha256, file.size);
  } catch (err) {
    throw new ApiError('content_unavailable', {
      detail: `${file.path} version ${file.version} is listed but its bytes cannot be read`,
      cause: err,
    });
  }
}

const row = (f: WorkFile) => ({
  path: f.path,
  version: f.version,
  etag: etag(f),
  size: f.size,
  content_type: f.content_type,
  removed: f.removed,
  updated_at: f.updated_at,
  updated_by: f.updated_by,
});

function knownProject(deps: WorkRouteDeps, key: string | null): string {
  if (key === null) throw badParams('project is required');
  // Keys are upper-case by their grammar: any case names the project, as on every /work route.
  const found = deps.projects().find((p) => p.key === key.toUpperCase());
  if (!found) throw new ApiError('no_project', { detail: `no project ${quoted(key)}` });
  return found.key;
}

function listing(deps: WorkRouteDeps, req: ApiRequest): ApiReply {
  const project = knownProject(deps, textParam(req, 'project'));
  const folder = textParam(req, 'folder')?.replace(/\/+$/, '') ?? null;
  const removed = boolParam(req, 'removed') ?? false;
  const limit = intParam(req, 'limit', queryRanges.workFilesLimit);
  const after = textParam(req, 'after');
  const rows = [...deps.state().files.values()]
    .filter(
      (f) =>
        f.project === project &&
        (removed || !f.removed) &&
        (folder === null || f.path.startsWith(`${folder}/`)) &&
        (after === null || f.path > after),
    )
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const page = rows.slice(0, limit);
  return {
    status: 200,
    body: {
      project,
      files: page.map(row),
      next: rows.length > page.length ? (page.at(-1)?.path ?? null) : null,
    },
  };
}

/**
 * `If-Match: "3"` (or `3`, or a list naming the `current` version) as 3; absent as null; anything else
 * refused. Then `If-None-Match`: `*` on a file that exists, or a tag naming the version the write replaces,
 * is 412 `entity_exists`. Not pinned: a write to an existing file needs `If-Match` anyway, and without one
 * the writer takes it only while the path holds no file, so the decision holds in log order.
 */
function ifMatch(req: ApiRequest, current: number | null, decided: boolean): number | null {
  const raw = req.headers['if-match'];
  let version: number | undefined;
  if (raw !== undefined && raw !== '') {
    const tagged = versionTag(raw, current);
    if (tagged === null) throw badParams('If-Match must be a version this route gave as ETag ("3")');
    version = tagged;
  }
  // A retry of a decided op_id answers its first outcome: its If-None-Match is not judged again.
  if (decided) return version ?? null;
  return noneMatchVersion(req.headers['if-none-match'], current, version, false) ?? null;
}

export function workFileRoutes(deps: WorkRouteDeps, blobs: FileBlobs): RouteDef[] {
  const target = (req: ApiRequest) => ({
    project: knownProject(deps, req.params['project']!),
    path: req.params['*'] ?? '',
  });

  const change = async (req: ApiRequest, kind: 'file_put' | 'file_delete'): Promise<ApiReply> => {
    operatorOnly(req, 'file writes');
    const { project, path } = target(req);
    const op_id = opIdOf(req, undefined, randomUUID);
    const state = deps.state();
    const held = state.files.get(`${project}/${path}`);
    const version = ifMatch(req, held && !held.removed ? held.version : null, state.ops.has(op_id));
    const contentType = req.headers['content-type'] || 'application/octet-stream';
    // The type is kept in the log and answered on every read: a media type fits well within 255.
    if (contentType.length > CONTENT_TYPE_MAX)
      throw badParams(`Content-Type must be at most ${CONTENT_TYPE_MAX} characters`);
    // A write this node's state already refuses (path, If-Match) is refused before its bytes are stored,
    // so a refused PUT leaves nothing behind; a retry of a used op_id goes to the writer for its outcome.
    if (!state.ops.has(op_id)) {
      const refused = fileRefusal(state, { kind, project, path, if_match: version });
      if (refused)
        refusal({
          outcome: 'refused',
          error: refused.error,
          detail: refused.detail,
          problems: refused.path ? [{ path: refused.path, message: refused.detail }] : [],
        });
    }
    let put: { content_type: string; size: number; sha256: string } | null = null;
    if (kind === 'file_put') {
      const sha256 = createHash('sha256').update(req.body).digest('hex');
      put = {
        content_type: contentType,
        size: req.body.length,
        sha256,
      };
      // Bytes first: a version the log lists always had its bytes written.
      if (!state.ops.has(op_id)) await blobs.put(sha256, req.body);
    }
    const reply = refusal(
      await deps.write({
        op_id,
        actor: actorOf(req, deps.people()),
        turn_id: null,
        change: put
          ? { kind, project, path, if_match: version, ...put }
          : { kind: 'file_delete', project, path, if_match: version },
      }),
    );
    await deps.until(reply.seq, READ_BACK_MS);
    const file = deps.state().files.get(`${project}/${path}`);
    return {
      status: kind === 'file_put' && file?.version === 1 && !reply.repeated ? 201 : 200,
      headers: file && !file.removed ? { ETag: etag(file) } : {},
      body: {
        op_id: reply.op_id,
        outcome: reply.repeated ? 'repeated' : 'applied',
        position: reply.position,
        file: file ? row(file) : null,
      },
    };
  };

  return [
    {
      method: 'GET',
      pattern: '/work/files',
      query: ['project', 'folder', 'removed', 'limit', 'after'],
      handler: (req) => listing(deps, req),
    },
    {
      method: 'GET',
      pattern: '/work/files/:project/*',
      query: [],
      handler: (req): ApiReply => {
        const { project, path } = target(req);
        const file = deps.state().files.get(`${project}/${path}`);
        if (!file || file.removed)
          throw new ApiError('not_found', { detail: `no file ${quoted(path)} in ${project}` });
        // The client holds this version's bytes (its ETag names them exactly): none are read or sent.
        if (holdsVersion(req.headers['if-none-match'], file.version))
          return { status: 304, headers: { ETag: etag(file) } };
        return {
          status: 200,
          headers: { 'Content-Type': file.content_type, ETag: etag(file) },
          body: new StreamedBody(file.size, contentOf(blobs, file)),
        };
      },
    },
    {
      method: 'PUT',
      pattern: '/work/files/:project/*',
      query: ['op_id'],
      preconditions: versioned,
      handler: (req) => change(req, 'file_put'),
    },
    {
      method: 'DELETE',
      pattern: '/work/files/:project/*',
      query: ['op_id'],
      preconditions: versioned,
      handler: (req) => change(req, 'file_delete'),
    },
  ];
}
