/**
 * What an integration actor appends to its stream (`svc.integrations.<kind>.<record>`, SVC_INTEGRATIONS):
 * a provisioning pass starting and finishing, each webhook arrival on one of its inbound surfaces, and
 * the rollups that sum the arrivals before them.
 * The integrations read model (arrival counts, runs) and every integration actor's state are folds of
 * these records, so any node answers them and a restart loses none.
 */
import { z } from 'zod';
import { PassRun } from './requirement.js';

export const IntegrationRecordType = {
  PassStarted: 'pass_started',
  PassFinished: 'pass_finished',
  Arrival: 'arrival',
  ArrivalsRollup: 'arrivals_rollup',
  Webhooks: 'webhooks',
} as const;
export type IntegrationRecordType = (typeof IntegrationRecordType)[keyof typeof IntegrationRecordType];

/** A pass the actor decided to run; a start with no finish is a pass a node was cut in the middle of. */
export const PassStarted = z.object({
  type: z.literal('pass_started'),
  run_id: z.string().min(1),
  kind: z.string().min(1),
  mode: z.enum(['provision', 'check', 'disconnect']),
  node: z.string(),
  actor: z.string(),
  started_at: z.string(),
});
export type PassStarted = z.infer<typeof PassStarted>;

export const PassFinished = z.object({
  type: z.literal('pass_finished'),
  run: PassRun,
});
export type PassFinished = z.infer<typeof PassFinished>;

/**
 * The webhooks a kind's passes registered at its vendor and last saw there, each by its exact address and
 * the vendor's id for it (the whole list, replacing the one before). A disconnect deletes by these, so a
 * hook registered before the public base URL changed or stopped resolving is still removed, and a hook at
 * another address (another installation's) never is. Appended only when the list changes.
 */
export const WebhooksRemembered = z.object({
  type: z.literal('webhooks'),
  kind: z.string().min(1),
  hooks: z.array(z.object({ url: z.string().min(1), id: z.string().min(1) })).max(100),
  run_id: z.string(),
  at: z.string(),
});

export const ArrivalOutcome = z.enum(['accepted', 'duplicate', 'refused', 'not_configured']);
export type ArrivalOutcome = z.infer<typeof ArrivalOutcome>;

/**
 * Deliveries to an inbound surface (`tracker-a`, `chat/{handle}`, `wiki/cloud`, ...) and what became of
 * them: one record per verified delivery; refusals (which anyone can send) are counted in bulk, `count`
 * of them up to `at`, so unsigned traffic cannot grow the stream one record per request.
 */
export const Arrival = z.object({
  type: z.literal('arrival'),
  surface: z.string().min(1),
  outcome: ArrivalOutcome,
  count: z.number().int().positive().default(1),
  /** The newest delivery counted. */
  at: z.string(),
  node: z.string(),
});
export type Arrival = z.infer<typeof Arrival>;

/** One surface's arrival counts as `GET /integrations` shows them. */
export const SurfaceCounts = z.object({
  accepted: z.number().int().nonnegative(),
  duplicates: z.number().int().nonnegative(),
  /** Bad or missing signatures, stale timestamps, malformed bodies. */
  refused: z.number().int().nonnegative(),
  /** Deliveries answered 503 because the surface's secret is not configured. */
  not_configured: z.number().int().nonnegative(),
  last_accepted_at: z.string().nullable(),
  last_refused_at: z.string().nullable(),
});
export type SurfaceCounts = z.infer<typeof SurfaceCounts>;

/**
 * Every surface's counts as folded through `through`, the last sequence the appending node had folded; newer
 * records may land before it (ops/webhooks.md "Compaction"). The fold takes these counts in place of its own
 * and adds back the arrival records above `through`; the arrival records up to `through` may then go. A
 * rollup without `through` (appended only as the record right after what it summed) sums through the
 * sequence below its own.
 */
export const ArrivalsRollup = z.object({
  type: z.literal('arrivals_rollup'),
  through: z.number().int().nonnegative().optional(),
  surfaces: z.record(z.string(), SurfaceCounts),
  /**
   * Per kind, the sequence its pass records (`pass_started`, `pass_finished`) were removed below, by the
   * compaction that appended this rollup: runs past the newest kept per kind, none still open.
   */
  passes_below: z.record(z.string(), z.number().int().positive()).optional(),
  at: z.string(),
  node: z.string(),
});
export type ArrivalsRollup = z.infer<typeof ArrivalsRollup>;

export const IntegrationRecord = z.discriminatedUnion('type', [
  PassStarted,
  PassFinished,
  Arrival,
  ArrivalsRollup,
  WebhooksRemembered,
]);
export type IntegrationRecord = z.infer<typeof IntegrationRecord>;
