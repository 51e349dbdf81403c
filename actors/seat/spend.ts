/**
 * Publishing spend. A spend record on `svc.spend.<kind>` is the only thing the read models count (token
 * rollup, series, live 24 h window, budgets, agent totals), so every way of spending goes through here.
 *
 * Auxiliary workers (`persist_decider`, `counterparty_profiler`, `skill_synthesizer`, ...) call
 * `recordAuxiliarySpend` once per model call: it publishes the spend record on `svc.spend.auxiliary` and
 * the `auxiliary_spend` event (the history line: stored, never a feed row, never pushed) under one id. The
 * event is never folded into spend, and the record is deduplicated by id (the bus's message id, then the
 * ledger and the window), so a call recorded twice, or seen both ways, counts once.
 */
import { randomUUID } from 'node:crypto';
import { publishEvent, Subjects, type Bus, type PubAck, newEvent } from '../../bus/index.js';
import { EventCategory, ReservedActor, SpendPhase, type SpendRecord } from '../../schema/index.js';
import type { Budget } from './budget.js';
import { spendBytes } from './spend-bytes.js';

/** Publishes one spend record on `svc.spend.<kind>` with its id as message id (a repeat is not stored twice). */
function publishSpend(bus: Bus, kind: 'llm' | 'auxiliary', record: SpendRecord): Promise<PubAck> {
  return bus.publish(Subjects.spend(kind), spendBytes(record), { msgId: record.id });
}

/** The seat an auxiliary call worked for: its spend then moves the seat's totals and budget meter. */
export interface SpendSeat {
  readonly handle: string;
  readonly agent_id: string;
  /** The seat's name (`role` of spend records). */
  readonly role: string;
}

export interface AuxiliarySpend {
  /** The worker that made the call: `persist_decider`, `counterparty_profiler`, `skill_synthesizer`, ... */
  readonly worker: string;
  /** The provider entry key and the model it served. */
  readonly provider: string;
  readonly model: string;
  readonly input_tokens: number;
  readonly output_tokens: number;
  readonly cache_read_tokens?: number;
  readonly cache_write_tokens?: number;
  readonly cost_usd?: number;
  /** Absent for work on no seat's behalf: it counts in the org's totals and cap only. */
  readonly seat?: SpendSeat;
  readonly turn_id?: string | null;
  /** Continue the trace of the work that asked for the call. */
  readonly trace?: { readonly trace_id: string; readonly parent_span_id: string | null };
  /** Retry handle: recording the same id again counts once (default: a fresh id). */
  readonly id?: string;
  /** When the call ended (default: now). */
  readonly at?: Date;
}

export interface SpendDeps {
  readonly bus: Bus;
  /** This node's id (`node` of the record, the event's source prefix). */
  readonly node: string;
  /** This node's budget count; when given, the stored spend counts in it at once. */
  readonly budget?: Pick<Budget, 'count'>;
}

/** The spend record of one auxiliary call (`phase: auxiliary`; no seat reads as empty handle, id and role). */
export function auxiliarySpendRecord(node: string, spend: AuxiliarySpend): SpendRecord {
  return {
    id: spend.id ?? randomUUID(),
    timestamp: (spend.at ?? new Date()).toISOString(),
    node,
    handle: spend.seat?.handle ?? '',
    agent_id: spend.seat?.agent_id ?? '',
    role: spend.seat?.role ?? '',
    turn_id: spend.turn_id ?? null,
    phase: SpendPhase.Auxiliary,
    worker: spend.worker,
    provider: spend.provider,
    model: spend.model,
    input_tokens: spend.input_tokens,
    output_tokens: spend.output_tokens,
    cache_read_tokens: spend.cache_read_tokens ?? 0,
    cache_write_tokens: spend.cache_write_tokens ?? 0,
    // As for a turn's calls: cache reads and writes are part of the input, not added again.
    total_tokens: spend.input_tokens + spend.output_tokens,
    ...(spend.cost_usd !== undefined ? { cost_usd: spend.cost_usd } : {}),
  };
}

/**
 * Records one auxiliary model call: 1. the spend record (what counts), 2. the `auxiliary_spend` event under
 * the same id, and the budget counters (the org's, the seat's when named) unless the record was a repeat. Resolves with the record.
 *
 * @example
 *   await recordAuxiliarySpend({ bus, node }, { worker: 'persist_decider', provider: 'main', model: 'm',
 *     input_tokens: 120, output_tokens: 30, seat: { handle: 'cto', agent_id, role: 'CTO' } });
 */
export async function recordAuxiliarySpend(deps: SpendDeps, spend: AuxiliarySpend): Promise<SpendRecord> {
  const record = auxiliarySpendRecord(deps.node, spend);
  // 1. the count: a repeat of the id is acknowledged as a duplicate and stored once
  await publishSpend(deps.bus, 'auxiliary', record);
  const { id: _id, node: _node, phase: _phase, timestamp: _at, ...payload } = record;
  const event = {
    ...newEvent({
      type: 'auxiliary_spend',
      category: EventCategory.System,
      source: `${deps.node}/${spend.worker}`,
      summary: `${spend.worker}: ${record.total_tokens} tokens (${record.model})`,
      actor: spend.seat?.handle ?? ReservedActor.System,
      payload,
      ...(spend.seat ? { agent_id: spend.seat.handle } : {}),
      ...(spend.trace ? { trace: spend.trace } : {}),
      now: spend.at ?? new Date(record.timestamp),
    }),
    // One id for the record and its history line: seen both ways, it is one call.
    id: record.id,
  };
  // 2. the history line; the budget the turn engine checks counts the stored record (once per id)
  deps.budget?.count(record);
  await publishEvent(deps.bus, event);
  return record;
}
