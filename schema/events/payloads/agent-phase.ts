/**
 * Payloads of the turn engine's phase events (published by the seat host, issue #8). The agents read
 * model consumes exactly these; `agent_phase_completed` is one `llm_history` row plus the system prompt,
 * the timeline and the split token counts.
 */
import { z } from 'zod';
import { count, Instant, Round, Steer, ToolExecution } from './common.js';

/** `plan`, `execute`, `review`, and others the engine may add; a detached coding run is `sandbox`. */
export const PhaseName = z.string().min(1);

/** Fields shared by every phase event: which turn, phase and pass. */
const PhaseKey = {
  turn_id: z.string().min(1),
  phase: PhaseName,
  /** The pass of this phase inside its turn (a review sending work back starts execute again). */
  iteration: z.number().int().nonnegative(),
};

export const AgentPhaseStarted = z.object({
  ...PhaseKey,
  model: z.string(),
  started_at: Instant,
  max_rounds: count.optional(),
  round_ceiling: count.optional(),
  launch_id: z.string().optional(),
  work_item: z.string().nullable().optional(),
  /** What woke the turn (`notification`, `schedule`, `mention`, ...), on the first phase only. */
  trigger: z.string().optional(),
  /** When the turn itself began (before its first phase): the agents row's `turn.started_at`. */
  turn_started_at: Instant.optional(),
});
export type AgentPhaseStarted = z.infer<typeof AgentPhaseStarted>;

/**
 * One `llm_history` row: every field the spec lists. Optional fields are "absent = not recorded".
 * `timestamp` is the instant the phase ended.
 */
export const PhaseRecord = z.object({
  ...PhaseKey,
  model: z.string(),
  response: z.string(),
  tool_executions: z.array(ToolExecution),
  round_narration: z.string().optional(),
  partial_round: z.string().nullable().optional(),
  total_tokens: count,
  timestamp: Instant,
  failed: z.boolean(),
  /** 0 = unmeasured. */
  duration_ms: count,
  started_at: Instant,
  rounds: z.array(Round),
  cache_read_tokens: count.optional(),
  cache_write_tokens: count.optional(),
  max_rounds: count.optional(),
  round_ceiling: count.optional(),
  host_round: z.number().int().optional(),
  launch_id: z.string().optional(),
  work_item: z.string().nullable().optional(),
  steers: z.array(Steer).optional(),
  cost_usd: z.number().nonnegative().optional(),
});
export type PhaseRecord = z.infer<typeof PhaseRecord>;

export const TimelineEntry = z.object({ at: Instant, kind: z.string(), detail: z.string().optional() });

/** A call to a tool running right now. */
export const RunningCall = z.object({
  name: z.string(),
  started_at: Instant,
  origin: z.string(),
  server: z.string().nullable(),
});

/**
 * The live view of the call a failed phase died in, as its last progress frame showed it. Progress is never
 * stored, so a read model replaying the history after a restart takes it from here (rule 4).
 */
export const InFlight = z.object({
  round_num: z.number().int().min(-1),
  round_started_at: Instant.nullable(),
  running_call: RunningCall.nullable(),
});

export const AgentPhaseCompleted = PhaseRecord.extend({
  system_prompt: z.string(),
  input_tokens: count,
  output_tokens: count,
  timeline: z.array(TimelineEntry),
  /** Why the phase died (when `failed`); becomes the seat's `last_error`. */
  error: z.string().nullable().optional(),
  /** Only on a failed phase that died live (not one closed from the turn journal). */
  in_flight: InFlight.optional(),
});
export type AgentPhaseCompleted = z.infer<typeof AgentPhaseCompleted>;

/**
 * Stream-only progress of the phase in flight (never stored). `round_num` -1 is the opening round (the
 * first model call with the opening prompt); `response` is the accumulated text so far.
 */
export const AgentTurnProgress = z.object({
  ...PhaseKey,
  round_num: z.number().int().min(-1),
  max_rounds: count,
  response: z.string(),
  tool_calls: z.array(ToolExecution),
  model: z.string().optional(),
  rounds: z.array(Round).optional(),
  round_narration: z.string().optional(),
  partial_round: z.string().nullable().optional(),
  round_started_at: Instant.nullable().optional(),
  running_call: RunningCall.nullable().optional(),
});
export type AgentTurnProgress = z.infer<typeof AgentTurnProgress>;

/** Review verdict of a turn: `passed_first` is true when the first review accepted the work. */
export const TurnReview = z.object({
  reviewed: z.boolean(),
  passed_first: z.boolean().nullable(),
  attempts: count,
});

/**
 * The seat waits on someone (questions to humans): activity `needs` while one of `ids` is open. `ids`: every
 * open need at the end of the turn; `raised`: those this turn asked. Records of earlier releases have
 * neither (their wait ended with the seat's next phase).
 */
export const TurnNeeds = z.object({
  reason: z.string(),
  audience: z.string().nullable().optional(),
  ids: z.array(z.string()).optional(),
  raised: z.array(z.string()).optional(),
});

export const AgentTurnCompleted = z.object({
  turn_id: z.string().min(1),
  started_at: Instant,
  ended_at: Instant,
  duration_ms: count,
  phases: z.array(PhaseName),
  total_tokens: count,
  failed: z.boolean(),
  error: z.string().nullable().optional(),
  trigger: z.string().optional(),
  work_item: z.string().nullable().optional(),
  review: TurnReview.optional(),
  needs: TurnNeeds.nullable().optional(),
});
export type AgentTurnCompleted = z.infer<typeof AgentTurnCompleted>;

/**
 * `human_answered`, `question_withdrawn`, `needs_cleared`: open needs of the seat closed (the asked human
 * woke it, the seat withdrew its question, an operator cleared them). `remaining`: what the seat still
 * waits on afterwards (null: nothing), so the agent row follows from this record alone.
 */
export const NeedsClosed = z.object({
  need_ids: z.array(z.string()),
  by: z.string(),
  turn_id: z.string().nullable().optional(),
  wake_id: z.string().nullable().optional(),
  remaining: TurnNeeds.nullable(),
});
export type NeedsClosed = z.infer<typeof NeedsClosed>;
