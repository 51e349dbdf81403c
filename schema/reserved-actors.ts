/**
 * Actor ids svc records for itself in the fields that also carry operator token ids (a revision's
 * `created_by`, a secret's `updated_by`, an event's `actor`, a log line's `operator`). Most of those fields
 * carry no kind, so a token holding one of these ids would write as svc itself: the Tier A file refuses such
 * a token id (tier-a.checks.ts), as it refuses one equal to the node's own id.
 */
export const ReservedActor = {
  /** Every caller while `api.auth.disabled` is true. */
  Anonymous: 'anonymous',
  /** Events svc raises on its own account (spend, a notification over its limit). */
  System: 'system',
  /** A schedule's fired event. */
  Scheduler: 'scheduler',
  /** A peer node's fleet-wide read, answered on this node. */
  Scatter: 'scatter',
  /** The per-seat code host app flow's secret and revision writes. */
  CodehostApp: 'codehost-a-app',
} as const;
export type ReservedActor = (typeof ReservedActor)[keyof typeof ReservedActor];

/** Why each id is svc's own, as a refusal of the token id says it. */
export const reservedActorWhy: Readonly<Record<ReservedActor, string>> = {
  [ReservedActor.Anonymous]:
    'it is the actor recorded for every caller when api.auth.disabled is true, so this token’s writes would read as made with the guard off',
  [ReservedActor.System]:
    'it is the actor of events svc raises on its own account (spend, notification limits)',
  [ReservedActor.Scheduler]: 'it is the actor of the events a schedule fires',
  [ReservedActor.Scatter]: 'it is the actor a peer node’s fleet-wide read runs as on this node',
  [ReservedActor.CodehostApp]:
    'it is the actor the code host app flow records its secret and configuration writes under',
};
