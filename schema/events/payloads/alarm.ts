/**
 * A node's alarms (ops/fleet.md "Alarms"): `alarm_raised` when a condition starts, `alarm_cleared` when it
 * ends. `alarm` names one condition on one node (`bus_unreachable`, `budget_exhausted:seat:ada`), so a
 * raise and its clear share it; `kind` is the closed set below.
 */
import { z } from 'zod';
import { Instant } from './common.js';

export const AlarmKind = {
  BusUnreachable: 'bus_unreachable',
  ConfigLagging: 'config_lagging',
  NodeShed: 'node_shed',
  ApplyStuck: 'apply_stuck',
  ApplyIsolated: 'apply_isolated',
  BudgetExhausted: 'budget_exhausted',
  ToolServerCrashLoop: 'toolserver_crash_loop',
  ProviderNoKey: 'provider_no_key',
  SetupIncomplete: 'setup_incomplete',
  DuplicateNodeId: 'duplicate_node_id',
} as const;
export type AlarmKind = (typeof AlarmKind)[keyof typeof AlarmKind];

/** Worst first: `/health` `alarms.worst` names the worst severity raised. */
export const AlarmSeverity = { Critical: 'critical', Warning: 'warning' } as const;
export type AlarmSeverity = (typeof AlarmSeverity)[keyof typeof AlarmSeverity];

const kinds = Object.values(AlarmKind) as [AlarmKind, ...AlarmKind[]];
const severities = Object.values(AlarmSeverity) as [AlarmSeverity, ...AlarmSeverity[]];

export const AlarmRaised = z.object({
  alarm: z.string().min(1),
  kind: z.enum(kinds),
  severity: z.enum(severities),
  node: z.string(),
  detail: z.string(),
  raised_at: Instant,
});
export type AlarmRaised = z.infer<typeof AlarmRaised>;

export const AlarmCleared = z.object({
  alarm: z.string().min(1),
  kind: z.enum(kinds),
  severity: z.enum(severities),
  node: z.string(),
  raised_at: Instant,
  cleared_at: Instant,
});
export type AlarmCleared = z.infer<typeof AlarmCleared>;
