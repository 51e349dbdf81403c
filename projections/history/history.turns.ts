/**
 * The turn questions over the event history: `turns` (completed turns, newest first, keyset pages),
 * `turn` (one completed turn with its phases and token totals) and `phases` (`llm_history`-shaped phase
 * rows of one turn, or of every seat or one, newest first, keyset pages). Turns and phases are found by
 * their kind in the events index and read back from the stream by sequence.
 */
import type { Coverage, EventRecord } from '../../schema/index.js';
import { EventKind } from '../events/events.kinds.js';
import type { EventsSource } from '../events/events.queries.js';
import { coverageOf, floorOf, historyPage, uniqueById, type HistoryPage } from './history.page.js';
import {
  cursorParam,
  HISTORY_PAGE_DEFAULT,
  HISTORY_PAGE_MAX,
  one,
  onlyKnown,
  PAGE_PARAMS,
  SEAT_PARAMS,
  wholeParam,
} from './history.params.js';
import { seatParam } from '../query/params.js';
import {
  phaseRow,
  phaseSummary,
  turnRow,
  type PhaseRow,
  type PhaseSummary,
  type TurnRow,
} from './history.rows.js';
import { QueryError } from '../query/query-error.js';

/** Phase records read back for one turn at most (a turn has a handful). */
export const TURN_PHASES_MAX = 500;

export interface TurnTokens {
  /** The turn record's own total. */
  readonly total: number;
  /** Sums over the turn's phase records. */
  readonly input: number;
  readonly output: number;
  readonly cache_read: number;
  readonly cache_write: number;
  /** Null when no phase recorded a cost. */
  readonly cost_usd: number | null;
}

export interface TurnAnswer {
  readonly turn: TurnRow;
  /** Oldest first. */
  readonly phases: PhaseSummary[];
  readonly tokens: TurnTokens;
  readonly coverage: Coverage;
}

export type PhasesAnswer = HistoryPage<PhaseRow> & { readonly turn_id?: string };

function pageParams(src: EventsSource, params: URLSearchParams) {
  const seat = seatParam(params, src.seatHandle);
  return {
    limit: wholeParam(params, 'limit', HISTORY_PAGE_DEFAULT, HISTORY_PAGE_MAX),
    cursor: cursorParam(params),
    ...(seat !== undefined ? { agentId: seat } : {}),
  };
}

function turnIdParam(params: URLSearchParams, what: string): string {
  const id = one(params, 'turn_id');
  if (id === undefined)
    throw new QueryError('bad_params', `${what} needs turn_id`, 'Take turn_id from a row of `turns`.');
  return id;
}

/** `turns`: completed turns, newest first (by the time their record was stamped). */
export function listTurns(src: EventsSource, params: URLSearchParams): Promise<HistoryPage<TurnRow>> {
  onlyKnown(params, 'turns', [...PAGE_PARAMS, ...SEAT_PARAMS]);
  const { limit, cursor, ...seat } = pageParams(src, params);
  return historyPage(src, { kind: EventKind.TurnCompleted, ...seat }, cursor, limit, turnRow);
}

/** The turn's completed record: found by its id (`turn-<turn_id>`, as the seat host writes it). */
async function turnRecord(src: EventsSource, turnId: string): Promise<EventRecord | null> {
  const id = `turn-${turnId}`;
  const floor = floorOf(src);
  for (const hit of src.state().index.findId(id)) {
    if (hit.ms < floor) break;
    const record = await src.fetch(hit.seq);
    if (record !== null && record.id === id && record.type === 'agent_turn_completed') return record;
  }
  return null;
}

/** The turn's phase records, oldest first: its trace's phase entries of its seat, checked by turn id. */
async function phasesOf(src: EventsSource, record: EventRecord, turnId: string): Promise<PhaseRow[]> {
  const index = src.state().index;
  const floor = floorOf(src);
  const code = index.agentCode(record.agent_id);
  const positions = index
    .trace(record.trace_id)
    .filter((i) => index.msAt(i) >= floor && index.matches(i, { kind: EventKind.PhaseCompleted }, code))
    .slice(0, TURN_PHASES_MAX);
  const rows = await Promise.all(
    positions.map(async (i) => {
      const r = await src.fetch(index.seqAt(i));
      const row = r === null || r.trace_id !== record.trace_id ? null : phaseRow(r);
      return row !== null && row.turn_id === turnId ? row : null;
    }),
  );
  return uniqueById(rows);
}

function notFound(turnId: string): QueryError {
  return new QueryError(
    'not_found',
    `no completed turn ${turnId} in the event history`,
    "A turn in flight is on its seat's agent row (`turn`); turns older than the history window are gone.",
  );
}

/** `turn`: one completed turn, its phases (summaries, oldest first) and its token totals. */
export async function getTurn(src: EventsSource, params: URLSearchParams): Promise<TurnAnswer> {
  onlyKnown(params, 'turn', ['turn_id']);
  const turnId = turnIdParam(params, 'turn');
  const record = await turnRecord(src, turnId);
  const turn = record === null ? null : turnRow(record);
  if (record === null || turn === null) throw notFound(turnId);
  const phases = (await phasesOf(src, record, turnId)).map(phaseSummary);
  const sum = (f: (p: PhaseSummary) => number): number => phases.reduce((a, p) => a + f(p), 0);
  const costs = phases.filter((p) => p.cost_usd !== null);
  return {
    turn,
    phases,
    tokens: {
      total: turn.total_tokens,
      input: sum((p) => p.input_tokens),
      output: sum((p) => p.output_tokens),
      cache_read: sum((p) => p.cache_read_tokens),
      cache_write: sum((p) => p.cache_write_tokens),
      cost_usd: costs.length === 0 ? null : costs.reduce((a, p) => a + (p.cost_usd ?? 0), 0),
    },
    coverage: coverageOf(src),
  };
}

/**
 * `phases`: with `turn_id`, that completed turn's phase rows oldest first in one answer (`exhausted`,
 * no cursor); without, phase rows of every seat (or the seat filter's) newest first, in keyset pages.
 */
export async function listPhases(src: EventsSource, params: URLSearchParams): Promise<PhasesAnswer> {
  if (params.has('turn_id')) {
    onlyKnown(params, 'phases with turn_id', ['turn_id']);
    const turnId = turnIdParam(params, 'phases');
    const record = await turnRecord(src, turnId);
    if (record === null) throw notFound(turnId);
    const rows = await phasesOf(src, record, turnId);
    return { turn_id: turnId, rows, exhausted: true, next: null, coverage: coverageOf(src) };
  }
  onlyKnown(params, 'phases', ['turn_id', ...PAGE_PARAMS, ...SEAT_PARAMS]);
  const { limit, cursor, ...seat } = pageParams(src, params);
  return historyPage(src, { kind: EventKind.PhaseCompleted, ...seat }, cursor, limit, phaseRow);
}
