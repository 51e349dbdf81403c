/**
 * The tracker's fixed workflow (ops/work-tracker.md "Statuses"): six statuses in four groups, the moves
 * allowed between them, and the priorities. Every project shares them, so a board reads the same anywhere.
 */
export const WorkStatus = {
  Backlog: 'backlog',
  Todo: 'todo',
  InProgress: 'in_progress',
  InReview: 'in_review',
  Done: 'done',
  Cancelled: 'cancelled',
} as const;
export type WorkStatus = (typeof WorkStatus)[keyof typeof WorkStatus];
export const workStatuses = Object.values(WorkStatus) as [WorkStatus, ...WorkStatus[]];

export const StatusGroup = { Todo: 'todo', Active: 'active', Done: 'done', Closed: 'closed' } as const;
export type StatusGroup = (typeof StatusGroup)[keyof typeof StatusGroup];
export const statusGroups = Object.values(StatusGroup) as [StatusGroup, ...StatusGroup[]];

export const groupOf: Readonly<Record<WorkStatus, StatusGroup>> = {
  backlog: 'todo',
  todo: 'todo',
  in_progress: 'active',
  in_review: 'active',
  done: 'done',
  cancelled: 'closed',
};

/**
 * Where each status may go. Work moves forward one step or back one step; anything open may be
 * cancelled; finished work may be reopened (done → in_progress, cancelled → backlog).
 */
export const workMoves: Readonly<Record<WorkStatus, readonly WorkStatus[]>> = {
  backlog: ['todo', 'in_progress', 'cancelled'],
  todo: ['backlog', 'in_progress', 'cancelled'],
  in_progress: ['todo', 'in_review', 'done', 'cancelled'],
  in_review: ['in_progress', 'done', 'cancelled'],
  done: ['in_progress'],
  cancelled: ['backlog'],
};

export const canMove = (from: WorkStatus, to: WorkStatus): boolean => workMoves[from].includes(to);

export const Priority = {
  Urgent: 'urgent',
  High: 'high',
  Medium: 'medium',
  Low: 'low',
  None: 'none',
} as const;
export type Priority = (typeof Priority)[keyof typeof Priority];
export const priorities = Object.values(Priority) as [Priority, ...Priority[]];
/** Sort rank: urgent first. */
export const priorityRank: Readonly<Record<Priority, number>> = {
  urgent: 0,
  high: 1,
  medium: 2,
  low: 3,
  none: 4,
};
