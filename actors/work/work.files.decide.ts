/**
 * The writer's decision on a project file (ops/work-tracker.md "Files"): the path's grammar, the
 * project, and `If-Match` against the version listed. Pure, like the item decisions.
 */
import type { WorkChange, WorkRecord, WorkState, WorkWrite } from '../../schema/index.js';
import type { Accepted, Refusal, WorkContext } from './work.types.js';

type FileChange = Extract<WorkChange, { kind: 'file_put' | 'file_delete' }>;

const SEGMENT = /^[A-Za-z0-9._-]+$/;
export const FILE_PATH_MAX = 512;

/** Why a file path is refused, or null: segments of letters, digits, `.`, `_`, `-`; no `.` or `..`. */
export function filePathProblem(path: string): string | null {
  if (path.length === 0 || path.length > FILE_PATH_MAX) return `1 to ${FILE_PATH_MAX} characters`;
  const segments = path.split('/');
  if (segments.some((s) => !SEGMENT.test(s) || s === '.' || s === '..'))
    return 'segments of letters, digits, ., _ and - (no empty, . or .. segment)';
  return null;
}

const refuse = (error: string, detail: string, path = ''): Refusal => ({
  refused: { error, detail, problems: path ? [{ path, message: detail }] : [] },
});

export function decideFile(
  state: WorkState,
  ctx: WorkContext,
  write: WorkWrite,
  change: FileChange,
  now: Date,
): Accepted | Refusal {
  if (!ctx.projects.some((p) => p.key === change.project))
    return refuse('no_project', `no project "${change.project}"`);
  const problem = filePathProblem(change.path);
  if (problem) return refuse('validation_error', `file path: ${problem}`, 'path');
  const file = state.files.get(`${change.project}/${change.path}`);
  const live = file && !file.removed ? file : null;
  const base = {
    op_id: write.op_id,
    at: now.toISOString(),
    actor: write.actor,
    turn_id: write.turn_id,
    id: `${change.project}/${change.path}`,
    project: change.project,
    path: change.path,
    version: (file?.version ?? 0) + 1,
  };
  if (change.kind === 'file_delete' && !live)
    return refuse('not_found', `no file ${change.path} in ${change.project}`);
  if (live && change.if_match !== live.version)
    return refuse(
      'revision_advanced',
      change.if_match === null
        ? `${change.path} exists at version ${live.version}: send If-Match with the version it replaces`
        : `${change.path} is at version ${live.version}, not ${change.if_match}`,
    );
  if (!live && change.if_match !== null)
    return refuse('no_such_entity', `${change.path} does not exist: send the first version without If-Match`);
  const record: WorkRecord =
    change.kind === 'file_put'
      ? {
          kind: 'file.put',
          ...base,
          size: change.size,
          content_type: change.content_type,
          sha256: change.sha256,
        }
      : { kind: 'file.removed', ...base };
  return { project: change.project, record };
}
