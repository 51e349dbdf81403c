/**
 * What a builtin tool is and the small interfaces the turn engine gives the builtins: personal
 * memory storage, the org directory (public fields only), the seat's `needs` state and an event
 * sink. A builtin answers with a `ToolResult`; bad arguments are a tool error the model can read.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { uuidv5, type EventRecord, type ToolEntry, type ToolResult } from '../../../schema/index.js';

/** Who is calling: the seat running the turn. */
export interface ToolContext {
  readonly seat: string;
  /** The seat's durable agent id (memory is keyed by it, so a kind flip back reattaches it). */
  readonly agent_id: string;
  readonly turn_id?: string | null;
  /** Continue the turn's trace in the events a tool publishes. */
  readonly trace?: { readonly trace_id: string; readonly parent_span_id: string | null };
  /** The turn's abort signal: once it fires, a call still running is cancelled and its result dropped. */
  readonly signal?: AbortSignal;
  /**
   * The call's place in its turn (turn, phase, round, position): the same on a resumed turn's retry, so
   * a builtin that writes derives its ids from it and a retried call writes the same row and event.
   */
  readonly call_id?: string;
  /**
   * How many calls of this tool its turn made before this one, a resumed turn's journaled ones included and
   * those refused for their arguments left out (they ran nothing); absent outside a turn. A per-turn cap is
   * read against it.
   */
  readonly calls_before?: number;
  /**
   * An operator's own `op_id` (`/operator/act`): a write takes it as sent, so one op_id names one gesture
   * across every tool and a reuse for another change is refused, as on the HTTP routes.
   */
  readonly op_id?: string;
}

/** Namespace of the ids builtins derive from a call id (`builtinCallId`). */
const callNamespace = '6f1c2a52-3f0e-5b6a-9d4e-8c7b1a2f0d3e';

/**
 * The id a builtin gives what it writes for one call: derived from the call id when the turn engine
 * gave one (so a retry after a cut writes the same row and event), else fresh.
 */
export function builtinCallId(ctx: ToolContext, what: string): string {
  return ctx.call_id === undefined
    ? randomUUID()
    : uuidv5(callNamespace, `${ctx.agent_id}\u0000${ctx.call_id}\u0000${what}`);
}

/** A builtin's precheck: its refusal by name, or the arguments its schema is to check. */
export type BuiltinPrecheck = { readonly refused: ToolResult } | { readonly args: Record<string, unknown> };

export interface BuiltinTool {
  readonly entry: ToolEntry;
  /** The arguments' schema, when the tool was defined by one (`defineBuiltin`). */
  readonly args?: z.ZodType;
  /** Whether the seat is offered the tool (default: every seat), e.g. `run_sandbox` only with a sandbox. */
  readonly offered?: (seat: string) => boolean;
  /**
   * For a caller that checks `args` itself, asked first: the tool's refusal by name of arguments `args`
   * would refuse as a bad shape (work_update's null for a field every item has), or the arguments to check.
   */
  readonly precheck?: (args: Record<string, unknown>) => BuiltinPrecheck;
  call(ctx: ToolContext, args: Record<string, unknown>): Promise<ToolResult>;
}

export const MemoryKind = { Long: 'long', Short: 'short' } as const;
export type MemoryKind = (typeof MemoryKind)[keyof typeof MemoryKind];

/** A personal memory row (spec "Memory view": `id`, `content`, `metadata`, `ttl_until`). */
export const MemoryRow = z.object({
  id: z.string(),
  kind: z.enum([MemoryKind.Long, MemoryKind.Short]),
  content: z.string(),
  metadata: z.record(z.string(), z.unknown()),
  /** Short rows only; null for long ones. */
  ttl_until: z.string().nullable(),
  created_at: z.string(),
  /**
   * The content's vector when `providers.embeddings` was on (ops/providers.md "Embeddings"): little-endian
   * float32s in base64, with the model and width that made it. Optional: rows written without one still read.
   */
  embedding: z
    .object({ model: z.string(), dimensions: z.number().int().positive(), vector: z.string() })
    .optional(),
});
export type MemoryRow = z.infer<typeof MemoryRow>;

/**
 * A recalled row: `similarity` (cosine, -1..1) is set when the store ranked by meaning, absent by words, and
 * `related` with it: at or above the embeddings block's `min_similarity`.
 */
export type RecalledRow = Omit<MemoryRow, 'embedding'> & {
  readonly similarity?: number;
  readonly related?: boolean;
};

export interface MemoryQuery {
  /** Free text; null lists the most recent rows. How rows are ranked is the store's choice. */
  readonly query: string | null;
  readonly kind: MemoryKind | null;
  readonly limit: number;
  /** Expired short rows are kept (the memory view shows them) but recalled only on request. */
  readonly include_expired: boolean;
  readonly now: Date;
}

/** The seat's personal memory store (the turn engine's, keyed by agent id). */
export interface PersonalMemory {
  remember(agentId: string, row: MemoryRow): Promise<void>;
  /** Rows without their stored vectors. */
  recall(agentId: string, query: MemoryQuery): Promise<RecalledRow[]>;
  /**
   * Removes one row of the agent's: `forgotten` when it was there, `gone` when the agent had it once and it
   * was removed since (forgotten or evicted), `unknown` when the agent never had it (another agent's id too).
   */
  forget(agentId: string, id: string): Promise<'forgotten' | 'gone' | 'unknown'>;
}

/** A colleague as any seat may see them: no contact identity, email, credential or runtime setting. */
export const Colleague = z.object({
  handle: z.string(),
  name: z.string(),
  kind: z.enum(['agent', 'human']),
  unit: z.string().nullable(),
  /** Units this seat leads (its own `lead` or inherited). */
  lead_of: z.array(z.string()),
  goal: z.string().nullable(),
  responsibilities: z.array(z.string()),
  manages: z.array(z.string()),
  /** Humans: free text rendered in rosters. */
  availability: z.string().nullable(),
});
export type Colleague = z.infer<typeof Colleague>;

export interface OrgDirectory {
  colleagues(): readonly Colleague[];
}

/** A question a seat waits on a human for. */
export interface Need {
  readonly id: string;
  readonly to: string;
  readonly question: string;
  readonly context: string | null;
  readonly urgency: 'low' | 'normal' | 'high';
  readonly asked_at: string;
  readonly turn_id: string | null;
}

/** What recording a need came to: `open` counts the seat's open needs after it (or at the refusal). */
export interface NeedRecorded {
  readonly recorded: boolean;
  readonly open: number;
}

/** Moves the seat into `needs` (spec seat activity) with what it waits for. Sends nothing. */
export interface NeedsRecorder {
  /**
   * Records the need; `recorded: false` (nothing written) when the seat already waits on as many open
   * questions as it may hold.
   */
  recordNeed(seat: string, need: Need): Promise<NeedRecorded>;
  /**
   * Withdraws the seat's open question `id` (`withdraw_question`, from the call `key`): false when no
   * such question is open.
   */
  withdrawNeed(seat: string, id: string, key: string, turnId: string | null): Promise<boolean>;
}

export interface EventSink {
  publish(event: EventRecord): Promise<void>;
}

/** A tool skill as a seat reads it, with where it came from. */
export interface ShelvedSkill {
  readonly name: string;
  readonly description: string;
  readonly content: string;
  readonly truncated: boolean;
  /** `native`, `wiki`, `tracker-b`, or `learned` (the seat's own, synthesised from its episodes). */
  readonly source: string;
  readonly url: string | null;
}

/** The tool skills the company keeps (actors/skills): what `skill_list` and `skill_read` read. */
export interface SkillShelf {
  /**
   * Every skill of the sources configured now, then the seat's own learned ones (`agentId`), by name, the
   * `{{name}}` placeholders replaced by the company's `skill_variables`; empty when there are none.
   */
  list(agentId: string | null): Promise<ShelvedSkill[]>;
  /** Where skills are kept now (`wiki space TS`, ...), for the answer when there are none. */
  places(): string[];
}
