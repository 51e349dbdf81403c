/**
 * What an integration actor appends to its stream (`svc.integrations.<kind>.<record>`, SVC_INTEGRATIONS):
 * a provisioning pass starting and finishing, and each webhook arrival on one of its inbound surfaces.
 * The integrations read model (arrival counts, runs) and every integration actor's state are folds of
 * these records, so any node answers them and a restart loses none.
 */
import { z } from 'zod';
import { PassRun } from './requirement.js';

export const IntegrationRecordType = {
  PassStarted: 'pass_started',
  PassFinished: 'pass_finished',
  Arrival: 'arrival',
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

export const IntegrationRecord = z.discriminatedUnion('type', [PassStarted, PassFinished, Arrival]);
export type IntegrationRecord = z.infer<typeof IntegrationRecord>;
