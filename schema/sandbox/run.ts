/**
 * A detached coding run's durable record (SVC_SANDBOX, one subject per run): the run as the feed shows it
 * (`Payloads.SandboxRun`) plus what only the supervisor needs — the node that launched it, its working
 * directory and process, the sha-256 of its path token and its telemetry counts. The token itself is
 * never stored: only the coding agent's environment holds it. Statuses are listed in ops/sandboxes.md.
 */
import { z } from 'zod';
import { SandboxEventTypes, SandboxRun } from '../events/payloads/sandbox.js';

const count = z.number().int().nonnegative();

/** 64 hex digits: the sha-256 of a run's path token. */
export const TokenDigest = z.string().regex(/^[0-9a-f]{64}$/);

export const SandboxTelemetry = z.object({ traces: count, metrics: count, logs: count, spans: count });
export type SandboxTelemetry = z.infer<typeof SandboxTelemetry>;

/**
 * What a record's move still owes once stored (ops/sandboxes.md "The run record"): its `sandbox_run_*`
 * event and, for a question or an end nobody waits on, the seat's wake. The move is stored with it, the
 * event published and the seat woken, then the record is stored again without it: a node cut in between
 * does what is owed on restart, with the same ids, so a repeat is stored once and wakes no second turn.
 */
export const SandboxOwed = z.object({
  /** The node that stored the move: it (and only it) does what is owed. */
  by: z.string().min(1),
  event: z.enum(SandboxEventTypes),
  wake: z.enum(['asked', 'ended']).nullable(),
});
export type SandboxOwed = z.infer<typeof SandboxOwed>;

export const SandboxRunRecord = SandboxRun.extend({
  /** The node whose supervisor launched the run and watches it. */
  node: z.string().min(1),
  /** The trace the run's spans join (the agent gets it as `TRACEPARENT`). */
  trace_id: z.string().regex(/^[0-9a-f]{32}$/),
  /** The span the run's spans are children of: the launching tool call's when the node exports spans. */
  span_id: z.string().regex(/^[0-9a-f]{16}$/),
  token_sha256: TokenDigest,
  /** The backend's own handle on the run (local backend: its directory); null before launch. */
  workdir: z.string().nullable(),
  pid: z.number().int().positive().nullable(),
  /** The answer to the run's last question, until the agent has read it. */
  answer: z.string().nullable(),
  telemetry: SandboxTelemetry,
  updated_at: z.string().min(1),
  /** Null once the move's event and wake are done (and in records stored before this field existed). */
  owed: SandboxOwed.nullable().default(null),
});
export type SandboxRunRecord = z.infer<typeof SandboxRunRecord>;

/**
 * The files a coding agent and the local backend talk through, in `$SVC_SANDBOX_CONTROL` (ops/sandboxes.md):
 * the agent writes `question.json` and waits for `answer.json`; it writes `result.json` when it ends.
 */
export const SandboxQuestion = z.object({
  question: z.string().trim().min(1).max(8_000),
  audience: z.string().trim().min(1).max(200).nullable().default(null),
});
export const SandboxResult = z.object({
  status: z.enum(['done', 'failed']),
  summary: z.string().max(20_000).default(''),
  total_tokens: count.default(0),
  error: z.string().max(4_000).nullable().default(null),
});
export type SandboxResult = z.infer<typeof SandboxResult>;

/** `sandbox.answer`: the answer a later turn gives to a run's question. */
export const SandboxAnswerRequest = z.object({
  sandbox_id: z.string().min(1).max(200),
  /** The seat answering: only the seat that launched the run may. */
  seat: z.string().min(1),
  answer: z.string().trim().min(1).max(8_000),
});
export const SandboxAnswerReply = z.union([
  z.object({ ok: z.literal(true), status: z.string() }),
  z.object({ ok: z.literal(false), error: z.string(), message: z.string() }),
]);
export type SandboxAnswerReply = z.infer<typeof SandboxAnswerReply>;

/** `POST /sandbox-runs/{id}/cancel`'s body: why (optional); any other field is refused, so a misspelt one never cancels silently. */
export const SandboxCancelBody = z.strictObject({ reason: z.string().trim().max(500).default('') });

/** `sandbox.cancel`: stop a run, by an operator (`by`: the token id) or its seat. */
export const SandboxCancelRequest = z.object({
  sandbox_id: z.string().min(1).max(200),
  by: z.string().min(1).max(200),
  reason: z.string().max(500),
});
export const SandboxCancelReply = z.union([
  z.object({ ok: z.literal(true), run: z.record(z.string(), z.unknown()), changed: z.boolean() }),
  z.object({ ok: z.literal(false), error: z.enum(['unknown_run', 'ended']), message: z.string() }),
]);
export type SandboxCancelReply = z.infer<typeof SandboxCancelReply>;
