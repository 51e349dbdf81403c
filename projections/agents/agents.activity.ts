/**
 * `/agents/activity`: per agent seat over a window of company days (`days`, default 7, 1..30 — the
 * turn log follows the 30-day event history): turn counts, first-pass rate over reviewed turns,
 * duration quantiles, and a day series (one entry per company day, oldest first).
 */
import { queryRanges } from '../../schema/index.js';
import type { AgentsState, TurnSummary } from './agents.state.js';
import type { CompanyModel } from '../org/company.model.js';
import { clampInt } from '../query/params.js';
import { addDays, dateKey, localDate, startOfLocalDay } from '../time/zoned-time.js';

/** Nearest-rank quantile of an ascending list; null when empty. */
export function quantile(sorted: readonly number[], q: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.max(1, Math.ceil(q * sorted.length));
  return sorted[Math.min(sorted.length, rank) - 1] ?? null;
}

function stats(turns: readonly TurnSummary[]) {
  const reviewed = turns.filter((t) => t.reviewed && t.passed_first !== null);
  const durations = turns.map((t) => t.duration_ms).sort((a, b) => a - b);
  return {
    turns: turns.length,
    failed: turns.filter((t) => t.failed).length,
    reviewed: reviewed.length,
    passed_first: reviewed.filter((t) => t.passed_first === true).length,
    /** Over reviewed turns only; null when none was reviewed. */
    first_pass_rate:
      reviewed.length === 0 ? null : reviewed.filter((t) => t.passed_first === true).length / reviewed.length,
    duration_ms: {
      p50: quantile(durations, 0.5),
      p90: quantile(durations, 0.9),
      max: durations.at(-1) ?? null,
    },
  };
}

export function agentActivity(
  state: AgentsState,
  company: CompanyModel,
  query: URLSearchParams,
  nowMs: number,
) {
  const { fallback, min, max } = queryRanges.activityDays;
  const days = clampInt(query.get('days'), fallback, min, max);
  const tz = company.timezone;
  const today = localDate(nowMs, tz);
  const dayStarts = Array.from({ length: days + 1 }, (_, i) => addDays(today, i - days + 1));
  const edges = dayStarts.map((d) => startOfLocalDay(d, tz));
  const from = edges[0] as number;
  const inWindow = state.turns.filter((t) => t.ended_ms >= from && t.ended_ms < (edges[days] as number));
  const seats = company.seats.filter((s) => s.kind === 'agent');
  const dayIndex = (ms: number): number => {
    let i = 0;
    while (i < days - 1 && ms >= (edges[i + 1] as number)) i += 1;
    return i;
  };
  return {
    days,
    timezone: company.shown_timezone,
    since: new Date(from).toISOString(),
    seats: seats.map((seat) => {
      const mine = inWindow.filter((t) => t.handle === seat.handle);
      const series = dayStarts
        .slice(0, days)
        .map((d) => ({ day: dateKey(d), turns: 0, failed: 0, reviewed: 0, passed_first: 0 }));
      for (const t of mine) {
        const day = series[dayIndex(t.ended_ms)];
        if (!day) continue;
        day.turns += 1;
        if (t.failed) day.failed += 1;
        // As the totals count them: a first pass only on a reviewed turn.
        if (t.reviewed && t.passed_first !== null) day.reviewed += 1;
        if (t.reviewed && t.passed_first === true) day.passed_first += 1;
      }
      return { id: seat.handle, role: seat.role, agent_id: seat.agent_id, ...stats(mine), series };
    }),
  };
}
