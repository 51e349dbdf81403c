/**
 * The agents read model's `llm_history`: rows newest first by their own end instant, one per (turn, phase,
 * pass, launch), at most `historyCap`; and how much of a model's answer a row (or `live_call`) shows — the
 * stored event keeps the whole of it, a row keeps a readable head.
 */
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
