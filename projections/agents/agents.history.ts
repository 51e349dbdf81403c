/**
 * The agents read model's `llm_history`: rows newest first by their own end instant, one per (turn, phase,
 * pass, launch), at most `historyCap`; and how much of a model's answer a row (or `live_call`) shows — the
 * stored event keeps the whole of it, a row keeps a readable head. A detached coding run is a row of its own.
 */
import { Payloads, type EventRecord } from '../../schema/index.js';
import { instantMs } from '../time/instants.js';
import { historyCap, type HistoryRow, type SeatRuntime } from './agents.state.js';

/** The most of a model's answer a row shows: one runaway answer must not make every read of the seat huge. */
export const SHOWN_RESPONSE_MAX = 64 * 1024;

/** `text` within SHOWN_RESPONSE_MAX, saying how much is left out and where the whole of it is. */
export function shownText(text: string): string {
  if (text.length <= SHOWN_RESPONSE_MAX) return text;
  const more = text.length - SHOWN_RESPONSE_MAX;
  return `${text.slice(0, SHOWN_RESPONSE_MAX)}… [${more} more characters: the phase's agent_phase_completed event holds the whole answer]`;
}

const sameRow = (a: HistoryRow, b: HistoryRow): boolean =>
  a.turn_id === b.turn_id &&
  a.phase === b.phase &&
  a.iteration === b.iteration &&
  a.launch_id === b.launch_id;

/** Inserts newest first by the row's own end instant; keeps at most `historyCap` rows. */
export function addHistory(seat: SeatRuntime, full: HistoryRow): void {
  const row =
    full.response.length > SHOWN_RESPONSE_MAX ? { ...full, response: shownText(full.response) } : full;
  const ms = instantMs(row.timestamp);
  const existing = seat.history.findIndex((h) => sameRow(h.row, row));
  if (existing >= 0) seat.history.splice(existing, 1);
  // Unparseable stamps sort after every dated row (oldest), stable among themselves.
  const at = seat.history.findIndex((h) => ms !== null && (h.ms === null || h.ms < ms));
  seat.history.splice(at < 0 ? seat.history.length : at, 0, { row, ms });
  if (seat.history.length > historyCap) seat.history.length = historyCap;
}

/** A detached coding run is an `llm_history` row with `phase: sandbox`; only a `done` run counts as not failed. */
export function sandboxRow(seat: SeatRuntime, e: EventRecord): boolean {
  const p = Payloads.SandboxRun.safeParse(e.payload);
  if (!p.success) return false;
  const run = p.data;
  addHistory(seat, {
    turn_id: run.turn_id,
    phase: 'sandbox',
    iteration: 0,
    model: run.coding_agent,
    response: run.summary ?? run.error ?? '',
    tool_executions: [],
    total_tokens: run.total_tokens ?? 0,
    timestamp: run.ended_at ?? e.timestamp,
    failed: e.type !== 'sandbox_run_completed' || run.status !== 'done',
    duration_ms: run.duration_ms ?? 0,
    started_at: run.started_at,
    rounds: [],
    launch_id: run.sandbox_id,
    work_item: run.work_item,
  });
  return true;
}
