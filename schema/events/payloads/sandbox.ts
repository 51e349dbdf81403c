/**
 * Detached coding runs (spec "Sandbox run"). Every `sandbox_run_*` event carries the whole run as it now
 * stands, so a reader never needs the earlier events of the run; `failed` adds the cause.
 */
import { z } from 'zod';
import { Instant, count } from './common.js';

/**
 * Run statuses (the spec leaves them open; ops/sandboxes.md): `launching` (recorded, process not yet up),
 * `running`, `awaiting_clarification` (the run asked a question), `resumed` (answered, the agent goes on),
 * then `done` or `failed`; `cancelled` when it was stopped. Terminal ones leave the live `sandboxes` section.
 */
export const SandboxStatus = {
  Launching: 'launching',
  Running: 'running',
  AwaitingClarification: 'awaiting_clarification',
  Resumed: 'resumed',
  Done: 'done',
  Failed: 'failed',
  Cancelled: 'cancelled',
} as const;
export type SandboxStatus = (typeof SandboxStatus)[keyof typeof SandboxStatus];
export const terminalSandboxStatuses: ReadonlySet<string> = new Set(['done', 'failed', 'cancelled']);

export const SandboxRun = z.object({
  turn_id: z.string(),
  role: z.string(),
  agent_handle: z.string(),
  agent_id: z.string(),
  coding_agent: z.string(),
  sandbox_id: z.string().min(1),
  task: z.string(),
  status: z.enum(Object.values(SandboxStatus) as [SandboxStatus, ...SandboxStatus[]]),
  started_at: Instant,
  /** A question the run put to someone (status `awaiting_clarification`). */
  question: z.string().nullable(),
  audience: z.string().nullable(),
  work_item: z.string().nullable(),
  owner: z.string().nullable(),
  paused_at: Instant.nullable(),
  ended_at: Instant.nullable().optional(),
  duration_ms: count.optional(),
  total_tokens: count.optional(),
  summary: z.string().optional(),
  error: z.string().nullable().optional(),
});
export type SandboxRun = z.infer<typeof SandboxRun>;

/** Types: started, updated (status or question changed), paused, completed, failed, cancelled. */
export const SandboxEventTypes = [
  'sandbox_run_started',
  'sandbox_run_updated',
  'sandbox_run_paused',
  'sandbox_run_completed',
  'sandbox_run_failed',
  'sandbox_run_cancelled',
] as const;
