/**
 * The writer's decision on a project file (ops/work-tracker.md "Files"): the project, then the rules of
 * schema/work/files.ts (the path's grammar, `If-Match` against the version listed). Pure, like the item
 * decisions.
 */
import {
  fileRefusal,
  type WorkChange,
  type WorkRecord,
  type WorkState,
  type WorkWrite,
} from '../../schema/index.js';
import type { Accepted, Refusal, WorkContext } from './work.types.js';

type FileChange = Extract<WorkChange, { kind: 'file_put' | 'file_delete' }>;

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
  const refused = fileRefusal(state, change);
  if (refused) return refuse(refused.error, refused.detail, refused.path);
  const file = state.files.get(`${change.project}/${change.path}`);
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
