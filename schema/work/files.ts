/**
 * The rules a project file write is decided by (ops/work-tracker.md "Files"): the path's grammar and
 * `If-Match` against the version listed. The writer decides with them in log order; the route asks them
 * first of its own node's state, so a write the log would refuse stores no bytes.
 */
import type { WorkState } from './state.js';

const SEGMENT = /^[A-Za-z0-9._-]+$/;
/** A file store key: the content's SHA-256 (hex) and the chunk's place. */
const CHUNK_KEY = /^([0-9a-f]{64})\.(0|[1-9][0-9]*)$/;
const FILE_PATH_MAX = 512;

/** Why a file path is refused, or null: segments of letters, digits, `.`, `_`, `-`; no `.` or `..`. */
export function filePathProblem(path: string): string | null {
  if (path.length === 0 || path.length > FILE_PATH_MAX) return `1 to ${FILE_PATH_MAX} characters`;
  const segments = path.split('/');
  if (segments.some((s) => !SEGMENT.test(s) || s === '.' || s === '..'))
    return 'segments of letters, digits, ., _ and - (no empty, . or .. segment)';
  return null;
}

/** The file store's key of chunk `index` of the content whose SHA-256 is `sha256`. */
export const fileChunkKey = (sha256: string, index: number): string => `${sha256}.${index}`;

/** The SHA-256 of the content a file store key is a chunk of, or null for a key that is no chunk. */
export function chunkContent(key: string): string | null {
  return CHUNK_KEY.exec(key)?.[1] ?? null;
}

export interface FileTarget {
  readonly kind: 'file_put' | 'file_delete';
  readonly project: string;
  readonly path: string;
  /** The version replaced (`If-Match`); null: the file must not exist yet. */
  readonly if_match: number | null;
}

/** A file write refused: its API error code, why, and the body path a problem is at ('' for none). */
export interface FileRefusal {
  readonly error: string;
  readonly detail: string;
  readonly path: string;
}

/** Why `state` refuses the write (the project is known), or null when it may be appended. */
export function fileRefusal(state: WorkState, change: FileTarget): FileRefusal | null {
  const problem = filePathProblem(change.path);
  if (problem) return { error: 'validation_error', detail: `file path: ${problem}`, path: 'path' };
  const file = state.files.get(`${change.project}/${change.path}`);
  const live = file && !file.removed ? file : null;
  // If-Match where no file is matches nothing (RFC 9110 13.1.1): 412, judged before a DELETE's 404.
  if (!live && change.if_match !== null)
    return {
      error: 'precondition_failed',
      detail: `${change.path} does not exist, so If-Match ${change.if_match} names no version of it: send the first version without If-Match`,
      path: '',
    };
  if (change.kind === 'file_delete' && !live)
    return { error: 'not_found', detail: `no file ${change.path} in ${change.project}`, path: '' };
  if (live && change.if_match !== live.version)
    return {
      error: 'revision_advanced',
      detail:
        change.if_match === null
          ? `${change.path} exists at version ${live.version}: send If-Match with the version it replaces`
          : `${change.path} is at version ${live.version}, not ${change.if_match}`,
      path: '',
    };
  return null;
}
