/** Pieces several payloads share: instants, tool executions, rounds, steers. */
import { z } from 'zod';

/** An RFC 3339 instant as published; readers compare instants, never strings (see projections/time/instants.ts). */
export const Instant = z.string().min(1);

const count = z.number().int().nonnegative();

/**
 * `builtin` or `mcp:<server>` (spec "Tool catalogue entry"), or `unknown`: the model called a tool the phase
 * does not offer, so nothing ran (ops/turn-engine.md "Events").
 */
export const ToolOrigin = z
  .string()
  .regex(/^(builtin|unknown|mcp:[A-Za-z0-9_.-]+)$/, 'builtin, unknown or mcp:<server>');

/** One tool call made by a phase. `server` is the tool server's name, null for a builtin. */
export const ToolExecution = z.looseObject({
  name: z.string().min(1),
  call_id: z.string().optional(),
  arguments: z.unknown().optional(),
  /** Truncated by the engine before publishing; readers never rely on its full length. */
  result: z.string().optional(),
  error: z.string().nullable().optional(),
  started_at: Instant,
  /** 0 = unmeasured. */
  duration_ms: count,
  origin: ToolOrigin,
  server: z.string().nullable(),
});
export type ToolExecution = z.infer<typeof ToolExecution>;

/** One model round of a phase (spec `llm_history.rounds[]`). `tool_calls` names the tools it asked for. */
export const Round = z.object({
  round: z.number().int().min(-1),
  started_at: Instant,
  duration_ms: count,
  model: z.string(),
  input_tokens: count,
  output_tokens: count,
  cache_read_tokens: count,
  cache_write_tokens: count,
  tool_calls: z.array(z.string()),
});
export type Round = z.infer<typeof Round>;

/** An operator's steering note delivered at a round. */
export const Steer = z.object({ round: z.number().int(), note_id: z.string() });

export { count };
