/**
 * What a turn needs from the node, as narrow interfaces: the provider registry, the tool router, the
 * budget counter, and the bus publications (stored events, stream-only progress, spend records).
 */
import type { Payloads, RoutedToolResult, SpendRecord, ToolEntry, Tracer } from '../../schema/index.js';
import type { ToolContext } from '../toolservers/index.js';
import type { CallerInfo, LlmRequest, LlmStream } from './providers/index.js';
import type { Budget } from './budget.js';

export interface TurnEvents {
  /**
   * A stored event on `svc.events.<type>` about this seat, resolved once it is durable. `id`: the record
   * id (and de-duplication id) when the caller derives one, so a resumed turn's repeat is stored once.
   */
  publish(type: string, payload: Record<string, unknown>, failed?: boolean, id?: string): Promise<void>;
  /** `agent_turn_progress`: stream-only (`bus.emit`), never stored. */
  progress(payload: Payloads.AgentTurnProgress): void;
}

export interface TurnDeps {
  readonly node: string;
  readonly llm: {
    resolve(seat: string | { readonly llm?: string }): string[];
    call(chain: readonly string[], request: LlmRequest, caller?: CallerInfo): LlmStream;
    /** The per-entry view (`GET /credential-pool`): names the model a phase expects before it calls. */
    snapshot?(): Readonly<Record<string, { readonly model: string }>>;
  };
  readonly tools: {
    toolsFor(seat: string): ToolEntry[];
    call(ctx: ToolContext, call: unknown): Promise<RoutedToolResult>;
  };
  readonly budget: Budget;
  readonly events: TurnEvents;
  /** Publishes a spend record under its id; `duplicate` when that id was stored already. */
  spend(record: SpendRecord): Promise<{ readonly duplicate: boolean }>;
  now(): Date;
  /** Phase, model call and tool call spans (ops/tracing.md); default none. */
  readonly tracer?: Tracer;
  /** At most one live-view frame per this many ms (turn.live.ts; default 50); 0 sends every change. */
  readonly progressEveryMs?: number;
}
