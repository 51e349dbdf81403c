/** The probe bodies (spec "Probes"): the health envelope and the not-ready answer. */
import { z } from 'zod';

export const HealthStatus = {
  Ok: 'ok',
  Unconfigured: 'unconfigured',
  Shed: 'shed',
  Stuck: 'stuck',
  Isolated: 'isolated',
  ShuttingDown: 'shutting_down',
} as const;
export type HealthStatus = (typeof HealthStatus)[keyof typeof HealthStatus];

export const Posture = {
  Serve: 'serve',
  Wait: 'wait',
  Shed: 'shed',
  Isolated: 'isolated',
  Stuck: 'stuck',
} as const;
export type Posture = (typeof Posture)[keyof typeof Posture];

const Coverage = z.object({
  nodes: z.array(z.object({ id: z.string(), answered: z.boolean(), error: z.string().optional() })),
  complete: z.boolean(),
});

/** Fields every node reports (the node half of the envelope). */
export const NodeHealth = z.object({
  status: z.enum(Object.values(HealthStatus) as [HealthStatus, ...HealthStatus[]]),
  node: z.string(),
  configured: z.boolean(),
  version: z.string(),
  started_at: z.string(),
  queue: z.enum(['jetstream-embedded', 'jetstream', 'memory']),
  in_flight: z.number().int().nonnegative(),
  shutting_down: z.boolean(),
  posture: z.enum(Object.values(Posture) as [Posture, ...Posture[]]),
  applied_epoch: z.number().int().nonnegative(),
  seats: z.array(z.string()),
  stall_lag_seconds: z.number().nonnegative().optional(),
  nodes: z.number().int().nonnegative().optional(),
  alarms: z.object({ count: z.number().int().nonnegative(), worst: z.string().optional() }).optional(),
  unproven_seconds: z.record(z.string(), z.number()).optional(),
});

/** The ingress envelope adds the dashboard and history facts. */
export const HealthEnvelope = NodeHealth.extend({
  clients: z.number().int().nonnegative(),
  event_history_seconds: z.number().int().positive(),
  spend_history_seconds: z.number().int().positive(),
  seeded_from: Coverage,
});
export type HealthEnvelope = z.infer<typeof HealthEnvelope>;

/** A node without the ingress role: the node half plus its roles. */
export const NodeOnlyHealth = NodeHealth.extend({ roles: z.array(z.string()) });
export type NodeOnlyHealth = z.infer<typeof NodeOnlyHealth>;

export const ReadyReason = {
  Draining: 'draining',
  BrokerUnlinked: 'broker_unlinked',
  Unconfigured: 'unconfigured',
  Shed: 'shed',
  Stuck: 'stuck',
  NoPresence: 'no_presence',
  AdmissionWithheld: 'admission_withheld',
} as const;
export type ReadyReason = (typeof ReadyReason)[keyof typeof ReadyReason];

export const NotReady = z.object({
  ready: z.literal(false),
  node: z.string(),
  configured: z.boolean(),
  draining: z.boolean(),
  posture: z.enum(Object.values(Posture) as [Posture, ...Posture[]]),
  reason: z.enum(Object.values(ReadyReason) as [ReadyReason, ...ReadyReason[]]),
  detail: z.string().optional(),
});
export type NotReady = z.infer<typeof NotReady>;
export type Readiness = { ready: true } | NotReady;
