/**
 * The rows of the turn and phase questions, shaped from stored records: a completed turn
 * (`agent_turn_completed`), a phase as an `llm_history` row (`agent_phase_completed` without its system
 * prompt and timeline) and a phase's summary (no response text, tool executions or rounds, only counts).
 */
import { Payloads, type EventRecord } from '../../schema/index.js';

export interface TurnRow {
  /** The record's id (the seat host writes `turn-<turn_id>`). */
  readonly id: string;
  readonly turn_id: string;
  /** The seat's handle. */
  readonly agent_id: string | null;
  /** When the turn's record was stamped (its place in the order of `turns`). */
  readonly timestamp: string;
  readonly trace_id: string;
  readonly started_at: string;
  readonly ended_at: string;
  readonly duration_ms: number;
  readonly phases: string[];
  readonly total_tokens: number;
  readonly failed: boolean;
  readonly error: string | null;
  readonly trigger: string | null;
  readonly work_item: string | null;
  readonly review: { reviewed: boolean; passed_first: boolean | null; attempts: number } | null;
  readonly needs: { reason: string; audience: string | null } | null;
}

export type PhaseRow = Payloads.PhaseRecord & {
  readonly id: string;
  readonly agent_id: string | null;
  readonly input_tokens: number;
  readonly output_tokens: number;
  readonly error: string | null;
};

export interface PhaseSummary {
  readonly id: string;
  readonly phase: string;
  readonly iteration: number;
  readonly model: string;
  readonly started_at: string;
  /** When the phase ended. */
  readonly timestamp: string;
  readonly duration_ms: number;
  readonly failed: boolean;
  readonly error: string | null;
  readonly total_tokens: number;
  readonly input_tokens: number;
  readonly output_tokens: number;
  readonly cache_read_tokens: number;
  readonly cache_write_tokens: number;
  readonly cost_usd: number | null;
  readonly tool_calls: number;
  readonly rounds: number;
}

export function turnRow(record: EventRecord): TurnRow | null {
  if (record.type !== 'agent_turn_completed') return null;
  const p = Payloads.AgentTurnCompleted.safeParse(record.payload);
  if (!p.success) return null;
  const d = p.data;
  return {
    id: record.id,
    turn_id: d.turn_id,
    agent_id: record.agent_id ?? null,
    timestamp: record.timestamp,
    trace_id: record.trace_id,
    started_at: d.started_at,
    ended_at: d.ended_at,
    duration_ms: d.duration_ms,
    phases: d.phases,
    total_tokens: d.total_tokens,
    failed: d.failed || record.failed,
    error: d.error ?? null,
    trigger: d.trigger ?? null,
    work_item: d.work_item ?? null,
    review: d.review ?? null,
    needs: d.needs ? { reason: d.needs.reason, audience: d.needs.audience ?? null } : null,
  };
}

export function phaseRow(record: EventRecord): PhaseRow | null {
  if (record.type !== 'agent_phase_completed') return null;
  const p = Payloads.AgentPhaseCompleted.safeParse(record.payload);
  if (!p.success) return null;
  const { system_prompt: _s, timeline: _t, in_flight: _f, error, ...row } = p.data;
  return { id: record.id, agent_id: record.agent_id ?? null, ...row, error: error ?? null };
}

export function phaseSummary(row: PhaseRow): PhaseSummary {
  return {
    id: row.id,
    phase: row.phase,
    iteration: row.iteration,
    model: row.model,
    started_at: row.started_at,
    timestamp: row.timestamp,
    duration_ms: row.duration_ms,
    failed: row.failed,
    error: row.error,
    total_tokens: row.total_tokens,
    input_tokens: row.input_tokens,
    output_tokens: row.output_tokens,
    cache_read_tokens: row.cache_read_tokens ?? 0,
    cache_write_tokens: row.cache_write_tokens ?? 0,
    cost_usd: row.cost_usd ?? null,
    tool_calls: row.tool_executions.length,
    rounds: row.rounds.length,
  };
}
