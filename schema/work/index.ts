export { customFieldProblem, customFields, taskTypeNamed, taskTypes } from './catalogue.js';
export {
  CommentBody,
  CreateItemBody,
  defaultFields,
  isCalendarDate,
  ItemFields,
  ItemTitle,
  ITEM_REF_MAX,
  bodyText,
  lineText,
  MoveItemBody,
  noWorkItem,
  OpId,
  PURGE_REASON_MAX_BYTES,
  PurgeBody,
  quotedRef,
  UpdateItemBody,
} from './item.js';
export {
  InboxReadBody,
  InboxSnoozeBody,
  InboxUnsnoozeBody,
  PinViewBody,
  PrioritiesBody,
  SaveViewBody,
  UpdateViewBody,
} from './person.bodies.js';
export { builtinViewId, PERSON_LIMITS } from './person.js';
export type { PersonAct, PersonState, SavedView } from './person.js';
export { formatPosition, parsePosition, WORK_GENERATION, WORK_STREAM } from './position.js';
export { projectsOf, seatKindsOf } from './projects.js';
export type { WorkProject } from './projects.js';
export { activityKinds, WorkRecord } from './records.js';
export { emptyWorkState, foldWork, itemByRef, itemVersion } from './state.js';
export { itemRow, listItems } from './item.list.js';
export { itemListIdentity, readItemListCursor, sealItemListCursor } from './item.list.cursor.js';
export { ItemListFilterArgs, itemListFilterNames, readItemFilters } from './item.list.filters.js';
export {
  SnapshotManifest,
  snapshotOf,
  stateOfSnapshot,
  WORK_SNAPSHOT_VERSION,
  WorkSnapshot,
} from './snapshot.js';
export type { ActivityRow, WorkFile, WorkItem, WorkOutcome, WorkState } from './state.js';
export { inCreationOrder, mentionedItems } from './state.index.js';
export { mentionsIn } from './mentions.js';
export {
  canMove,
  groupOf,
  priorities,
  priorityRank,
  StatusGroup,
  statusGroups,
  workMoves,
  workStatuses,
} from './statuses.js';
export { WorkWrite, WorkWriteReply, WorkChange, WorkRefused } from './write.js';
export {
  HOLDER,
  MaintenanceAbandonBody,
  MaintenanceExcludeBody,
  MaintenanceOpenBody,
  ReanchorBody,
  RetentionAckBody,
  RetentionCapacityBody,
  RetentionCommand,
  RetentionEvictBody,
  RetentionReadmitBody,
  RetentionRecord,
  RetentionReply,
  retentionSubjects,
  TrimBody,
} from './retention.records.js';
export type { RetentionGesture } from './retention.records.js';
export {
  foldHead,
  foldLogSize,
  foldRetention,
  generationAt,
  holderCurrent,
  overCapacity,
  retentionFloor,
  trimmedBelow,
} from './retention.state.js';
export type {
  MaintenanceWindow,
  RetentionHolder,
  RetentionOutcome,
  RetentionState,
  RetentionTrim,
} from './retention.state.js';
export { chunkContent, fileChunkKey, fileRefusal } from './files.js';
