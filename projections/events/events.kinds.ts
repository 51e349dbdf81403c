/**
 * The few event types the history questions list on their own (`turns`, `phases`), as a small code the
 * index keeps beside the category (three bits of the entry's flag byte). Every other type is `Other`; the
 * code is decided once per type (the replay's fast path caches it with the category).
 */
export const EventKind = {
  Other: 0,
  TurnCompleted: 1,
  PhaseCompleted: 2,
} as const;
export type EventKind = (typeof EventKind)[keyof typeof EventKind];

const kinds: Readonly<Record<string, EventKind>> = Object.freeze({
  agent_turn_completed: EventKind.TurnCompleted,
  agent_phase_completed: EventKind.PhaseCompleted,
});

/** The kind code of an event type (`Other` for every type not listed on its own). */
export function kindOf(type: string): EventKind {
  return Object.hasOwn(kinds, type) ? (kinds[type] ?? EventKind.Other) : EventKind.Other;
}
