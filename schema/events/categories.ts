/**
 * The event type -> category map (the admission list) and the deliberately excluded types.
 *
 * A type named in `EventTypeCategories` is stored on SVC_EVENTS and may appear in `/events`; a type with no
 * category is neither stored nor in the feed. `ExcludedEventTypes` names the types kept out of the feed on
 * purpose, with the reason: a stream-only type is pushed (emitted, never stored), an accounting type is stored
 * but never pushed as an event frame and never listed in the feed. `ops/event-types.md` lists the same types
 * with their publisher and payload fields; `test/schema/event-categories.unit.test.ts` keeps code, map and
 * list in step.
 */
import { EventCategory } from './category-set.js';

const { A2a, Decision, Learning, Lifecycle, Notification, System, Task, Webhook } = EventCategory;

/** Every stored event type and its category. Add a line here (and in ops/event-types.md) for a new type. */
export const EventTypeCategories: Readonly<Record<string, EventCategory>> = Object.freeze({
  // seat turns and phases
  agent_phase_started: Lifecycle,
  agent_phase_completed: Lifecycle,
  agent_turn_completed: Lifecycle,
  sandbox_run_failed: Lifecycle,
  agent_paused: Lifecycle,
  agent_resumed: Lifecycle,
  needs_cleared: Lifecycle,
  sandbox_run_started: Lifecycle,
  sandbox_run_updated: Lifecycle,
  sandbox_run_paused: Lifecycle,
  sandbox_run_completed: Lifecycle,
  sandbox_run_cancelled: Lifecycle,
  // what the learning subsystem records (the memory view)
  episode_recorded: Learning,
  episode_consolidated: Learning,
  episodes_compacted: Learning,
  episodes_pruned: Learning,
  memory_remembered: Learning,
  memory_forgotten: Learning,
  counterparty_profile_updated: Learning,
  skill_synthesized: Learning,
  skill_promoted: Learning,
  // refusals and guards decided by the engine
  budget_exhausted: Decision,
  'turn.guard_breach': Decision,
  // seats reaching colleagues (a recorded ask; the engine never sends messages as itself)
  human_asked: A2a,
  human_answered: A2a,
  question_withdrawn: A2a,
  // inbound surfaces
  chat_message_received: Webhook,
  webhook_received: Webhook,
  // routing of notifications to seats
  NotificationSkipped: Notification,
  notification_failed: Notification,
  // task lifecycle
  TaskCreated: Task,
  TaskAssigned: Task,
  TaskCompleted: Task,
  TaskDelegated: Task,
  // the node, its configuration, providers and duties
  llm_unavailable: System,
  provider_fallback: System,
  alarm_raised: System,
  alarm_cleared: System,
  ConfigRevisionApplied: System,
  schedule_fired: System,
  // the work log's retention gestures (ops/work-tracker.md "Retention")
  work_retention_acked: System,
  work_retention_evicted: System,
  work_retention_readmitted: System,
  work_retention_capacity_set: System,
  work_maintenance_opened: System,
  work_maintenance_excluded: System,
  work_maintenance_abandoned: System,
  work_reanchored: System,
  work_retention_trimmed: System,
  // accounting: stored (spend counts it) but excluded from the feed below
  auxiliary_spend: System,
});

export interface Exclusion {
  /** True when the type is stored on SVC_EVENTS (and listed by `/events` without `feed_only`). */
  readonly stored: boolean;
  /** True when the type is pushed live (emitted on its subject for the overlay that folds it). */
  readonly pushed: boolean;
  readonly reason: string;
  /**
   * For a type pushed but never stored: the category its record carries, declared here (it has no place in
   * the admission map above, so no other default gives it one). A stored type's category is the map's.
   */
  readonly category?: EventCategory;
}

/** Types kept out of the feed (`event` frames, snapshot `events`, `/events?feed_only=true`), with why. */
export const ExcludedEventTypes: Readonly<Record<string, Exclusion>> = Object.freeze({
  agent_turn_progress: {
    stored: false,
    pushed: true,
    reason: 'stream-only: emitted for the live call overlay of its seat, never stored, never a feed row',
    // A frame is a seat's turn in flight, as its stored phase records are.
    category: Lifecycle,
  },
  auxiliary_spend: {
    stored: true,
    pushed: false,
    reason: 'accounting: stored and counted in spend, never pushed as an event frame and never in the feed',
  },
});

/** The category of a stored type, or null when the type is not admitted. */
export function categoryOf(type: string): EventCategory | null {
  return Object.hasOwn(EventTypeCategories, type) ? (EventTypeCategories[type] ?? null) : null;
}

/**
 * The category a record of `type` carries: the map's for a stored type, the one its exclusion declares for a
 * type pushed but never stored, null for a type that may not be published at all.
 */
export function recordCategoryOf(type: string): EventCategory | null {
  const category = categoryOf(type);
  if (category !== null || !Object.hasOwn(ExcludedEventTypes, type)) return category;
  const excluded = ExcludedEventTypes[type];
  return excluded?.stored === false && excluded.pushed ? (excluded.category ?? null) : null;
}

/** True for a type stored on SVC_EVENTS. */
export function isStoredType(type: string): boolean {
  return categoryOf(type) !== null;
}

/** True for a stored type that is a feed row (pushed as an `event` frame, listed with `feed_only=true`). */
export function isFeedType(type: string): boolean {
  return isStoredType(type) && !Object.hasOwn(ExcludedEventTypes, type);
}

/** How a type travels: `store` (publish on the stream), `emit` (core only, never stored), or refused. */
export type EventAdmission = 'store' | 'emit' | 'refused';

export function admissionOf(type: string): EventAdmission {
  if (isStoredType(type)) return 'store';
  return recordCategoryOf(type) === null ? 'refused' : 'emit';
}
