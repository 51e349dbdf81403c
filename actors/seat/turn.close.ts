/**
 * The phases a cut left open, closed when their turn ends without running them again — a scheduled turn
 * taken again past its deadline, or one whose deadline came while its earlier phases replayed. Each gets
 * its `agent_phase_completed`, failed with the turn's error and built from what the journal holds of it
 * (its rounds, its tool results, a call in flight at the cut as "outcome unknown"), then a `phase_failed`
 * journal record, so a turn resumed once more finds it ended. Spend the journal holds of it and may not
 * have stored (a round or an `unfinished` record the run died after) is stored first, under its ids. The record's id is the one the phase
 * itself publishes under (`phase-<turn>-<phase>.<iteration>`): a repeat is stored once.
 */
import type { SpendRecord, ToolEntry } from '../../schema/index.js';
import { phaseRounds } from './seat.limits.js';
import type { Charter, SeatProfile } from './seat.profile.js';
import type { Turn, TurnCompletedPayload } from './seat.types.js';
import type { TurnDeps } from './turn.deps.js';
import type { OpenPhase } from './turn.journal.js';
import {
  addSpent,
  phaseRecord,
  roundRow,
  tokensOf,
  type PhaseCompleted,
  type PhaseSoFar,
  type TimelineMark,
  type ToolExecution,
} from './turn.phase.record.js';
import { systemPrompt } from './turn.prompts.js';
import type { OpenedTurn } from './turn.resume.js';
import { unknownOutcome } from './turn.tools.js';

export interface Closing {
  readonly turn: Turn;
  /** The seat as the turn knew it (its profile when it started on this run, else the seat's now). */
  readonly seat: SeatProfile;
  readonly charter: Charter;
  readonly deps: Pick<TurnDeps, 'llm' | 'tools' | 'now' | 'spend' | 'budget'>;
  /** The turn's error: each closed phase fails with it. */
  readonly error: string;
  readonly publish: (payload: PhaseCompleted, id: string) => Promise<void>;
}

/**
 * Closes every phase of `opened` an earlier run started and this run never took up; answers the turn's
 * completion counting them: the phases an earlier run ended or this close ended, with their tokens, join
 * the ones this run ran (so a turn taken again past its deadline does not read `phases: []`, 0 tokens).
 */
export async function closeCutPhases(
  opened: OpenedTurn,
  payload: TurnCompletedPayload,
  c: Closing,
): Promise<TurnCompletedPayload> {
  const unasked = opened.unasked();
  const closed = new Map<string, number>();
  for (const open of opened.unclosed()) {
    const p = cutPhase(open, opened.prior?.cuts ?? [], c);
    const { turn_id, phase, iteration } = p.key;
    // Spend the phase's journal holds and may not have stored (its run died first): stored before the phase
    // is on record as ended, which would settle it.
    await storeUnsettled(opened.prior?.unsettled(phase, iteration) ?? [], c);
    await c.publish(phaseRecord(p, c.deps.now(), true, c.error), `phase-${turn_id}-${phase}.${iteration}`);
    const tokens = tokensOf(p);
    await opened.writer.write({
      kind: 'phase_failed',
      phase,
      iteration,
      reason: 'aborted',
      error: c.error,
      tokens,
    });
    closed.set(`${phase}.${iteration}`, tokens);
  }
  if (unasked.length === 0) return payload;
  const tokens = unasked.reduce((n, p) => n + (p.tokens ?? closed.get(`${p.phase}.${p.iteration}`) ?? 0), 0);
  return {
    ...payload,
    // This run replays a journal from its start, so what it asked for is the journal's first phases.
    phases: [...payload.phases, ...unasked.map((p) => p.phase)],
    total_tokens: payload.total_tokens + tokens,
  };
}

/**
 * Stores spend records on record in the journal and counted in the budget, under their own ids: a copy the
 * earlier run stored is a duplicate, and the budget and read models count an id once.
 */
async function storeUnsettled(records: readonly SpendRecord[], c: Closing): Promise<void> {
  await Promise.all(records.map((record) => c.deps.spend(record)));
  for (const record of records) c.deps.budget.count(record);
}

/** The phase as far as its journal holds it. */
function cutPhase(
  open: OpenPhase,
  cuts: readonly { readonly at: string; readonly reason: string }[],
  c: Closing,
): PhaseSoFar {
  const { record } = open;
  const started = new Date(record.started.started_at);
  const tools = new Map<string, ToolEntry>(c.deps.tools.toolsFor(c.seat.handle).map((t) => [t.name, t]));
  const rounds = [...record.rounds.values()].sort((a, b) => a.round - b.round);
  const executions: ToolExecution[] = [];
  let delivered = false;
  for (const r of rounds)
    for (const [index, call] of r.answer.tool_calls.entries()) {
      const { started: begun, result } = record.calls.get(`${r.round}.${index}`) ?? {};
      if (result) delivered ||= result.delivered;
      // Asked for and never answered on record: in flight at the cut, or not yet begun.
      const at = () => new Date(begun?.at ?? r.at);
      executions.push(result?.execution ?? unknownOutcome({ now: at }, call, tools.get(call.name)).execution);
    }
  const timeline: TimelineMark[] = [
    ...executions.map((e) => ({ at: e.started_at, kind: 'tool', detail: e.name })),
    ...cuts
      .filter((cut) => cut.at >= started.toISOString())
      .map((cut) => ({ at: cut.at, kind: 'cut', detail: cut.reason })),
  ].sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
  const last = rounds[rounds.length - 1]?.answer;
  const sum = (of: (u: (typeof rounds)[number]['answer']['usage']) => number): number =>
    rounds.reduce((n, r) => n + of(r.answer.usage), 0);
  const totals = {
    input: sum((u) => u.input_tokens),
    output: sum((u) => u.output_tokens),
    cacheRead: sum((u) => u.cache_read_tokens),
    cacheWrite: sum((u) => u.cache_write_tokens),
  };
  addSpent(totals, [...rounds.flatMap((r) => r.unfinished ?? []), ...record.unfinished]);
  return {
    key: { turn_id: c.turn.turn_id, phase: open.phase, iteration: open.iteration },
    turn: c.turn,
    started,
    system: systemPrompt(c.charter, c.seat, open.phase),
    model: last?.model ?? firstModel(c),
    text: last?.text ?? '',
    delivered,
    rounds: rounds.map((r) => roundRow(r.round, r.answer)),
    executions,
    timeline: [{ at: started.toISOString(), kind: 'started' }, ...timeline],
    totals,
    maxRounds: record.started.max_rounds,
    ceiling: phaseRounds(c.turn.limits, open.phase).ceiling,
  };
}

/** The model of the seat's chain's first entry, as a phase that got no answer names it. */
function firstModel(c: Closing): string {
  const [first] = c.deps.llm.resolve(c.seat.llm ? { llm: c.seat.llm } : c.seat.handle);
  return (first !== undefined ? c.deps.llm.snapshot?.()[first]?.model : undefined) ?? '';
}
