export {
  customFieldProblem,
  customFields,
  CustomField,
  taskTypeNamed,
  TaskType,
  taskTypes,
} from './catalogue.js';
export { Comment } from './comment.js';
export {
  ChecklistEntry,
  CommentBody,
  CreateItemBody,
  defaultFields,
  isOpId,
  ITEM_KEY,
  ItemFields,
  Link,
  LinkKind,
  MoveItemBody,
  OP_ID_MAX_BYTES,
  OpId,
  PROJECT_KEY,
  PURGE_REASON_MAX_BYTES,
  PurgeBody,
  UpdateItemBody,
} from './item.js';
export type { ItemChanges } from './item.js';
export { formatPosition, parsePosition, WORK_GENERATION, WORK_STREAM } from './position.js';
export type { Position } from './position.js';
export { projectsOf, seatKindsOf } from './projects.js';
export type { WorkProject } from './projects.js';
export { WorkRecord } from './records.js';
export type { WorkRecordKind } from './records.js';
export { emptyWorkState, foldWork, itemByRef } from './state.js';
export type { ActivityRow, FieldDelta, WorkFile, WorkItem, WorkOutcome, WorkState } from './state.js';
export {
  canMove,
  groupOf,
  Priority,
  priorities,
  priorityRank,
  StatusGroup,
  statusGroups,
  workMoves,
  WorkStatus,
  workStatuses,
} from './statuses.js';
export { WorkWrite, WorkWriteReply, WorkChange } from './write.js';
