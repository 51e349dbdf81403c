/**
 * Agent rows (spec "Agent row"): the seat from the active document joined with its runtime facts.
 * Activity precedence: working (unless the turn waits: cut by a `stop_running` pause, or for its
 * provider's retry_at; or no node holds the seat, so a dead holder's open turn is worked by nobody) →
 * stopped (unplaced) → needs → stopped (paused) → stopped (budget) → stopped (provider) → idle. A failed
 * last turn is not a stop: the seat reads idle with `last_error`.
 */
import type { OpenQuestion, Paused, SeatRuntime, StopCause } from './agents.state.js';
import { emptyRuntime, type AgentsState, type HistoryRow } from './agents.state.js';
import { meter, type BudgetReport, type Meter } from '../tokens/budgets.js';
import type { CompanyModel, SeatInfo } from '../org/company.model.js';
import { zeroFull, type TokenRowFull } from '../tokens/token-rows.js';
import { instantMs } from '../time/instants.js';

export const Activity = { Working: 'working', Needs: 'needs', Stopped: 'stopped', Idle: 'idle' } as const;
export type Activity = (typeof Activity)[keyof typeof Activity];
export const StoppedReason = {
  Paused: 'paused',
  Unplaced: 'unplaced',
  Budget: 'budget',
  Provider: 'provider',
} as const;
export type StoppedReason = (typeof StoppedReason)[keyof typeof StoppedReason];

export interface RowContext {
  readonly company: CompanyModel;
  /** From the fleet's lease table: false when no node holds the seat. */
  readonly placed: (handle: string) => boolean;
  /** Token totals per seat over the live 24 h window. */
  readonly tokens: ReadonlyMap<string, TokenRowFull>;
  readonly budgets: BudgetReport;
  /** The read's instant (ms): a stop cause whose condition passed is no longer in force. Default: now. */
  readonly now?: number;
  /** The seat's pause as its record in the coordination store keeps it (null: none); absent: not read. */
  readonly pauseRecord?: (handle: string) => Paused | null;
  /** The questions the seat's own log holds open (none: empty); absent: not read. */
  readonly needsRecord?: (handle: string) => readonly OpenQuestion[];
}

export interface BudgetMeterView {
  window_start: string;
  window_end: string;
  seat: Meter;
  org: Meter;
  /** Which scope refuses this seat's turns now, if any. */
  refused: 'seat' | 'org' | null;
}

export function activityOf(
  rt: SeatRuntime | undefined,
  placed: boolean,
  budgetRefused: boolean,
): { activity: Activity; stopped_reason: StoppedReason | null } {
  const stopped = (reason: StoppedReason) => ({ activity: Activity.Stopped, stopped_reason: reason });
  // A turn cut by a `stop_running` pause, waiting for its provider's retry_at, or left open by a holder that
  // died (no node holds the seat) is not being worked.
  const waiting =
    !placed || rt?.paused?.stop_running || (rt?.turn && rt.provider?.turn_id === rt.turn.turn_id);
  if (rt?.turn && !waiting) return { activity: Activity.Working, stopped_reason: null };
  // Spec: a seat no node holds reads stopped / unplaced, whatever it waits on; its `needs` and `paused`
  // fields still say so.
  if (!placed) return stopped(StoppedReason.Unplaced);
  if (rt?.needs) return { activity: Activity.Needs, stopped_reason: null };
  if (rt?.paused) return stopped(StoppedReason.Paused);
  if (budgetRefused || rt?.budget) return stopped(StoppedReason.Budget);
  if (rt?.provider) return stopped(StoppedReason.Provider);
  return { activity: Activity.Idle, stopped_reason: null };
}

/**
 * Whether a reported stop cause still holds: a provider stop until its `retry_at` (when known), a budget
 * stop while its window lasts and its scope's cap is not raised past what was used (nor removed).
 */
export function inForce(cause: StopCause, handle: string, ctx: RowContext): boolean {
  const now = ctx.now ?? Date.now();
  const until = cause.until ? Date.parse(cause.until) : NaN;
  if (Number.isFinite(until) && now >= until) return false;
  if (!cause.budget) return true;
  const cap =
    cause.budget.scope === 'org'
      ? ctx.budgets.org.cap
      : (ctx.budgets.seats.find((s) => s.handle === handle)?.cap ?? 0);
  return cap > 0 && cap <= cause.budget.used;
}

/** The seat's runtime with the stop causes whose condition passed left out. */
function current(rt: SeatRuntime | undefined, handle: string, ctx: RowContext): SeatRuntime | undefined {
  if (!rt) return rt;
  const provider = rt.provider && inForce(rt.provider, handle, ctx) ? rt.provider : null;
  const budget = rt.budget && inForce(rt.budget, handle, ctx) ? rt.budget : null;
  return provider === rt.provider && budget === rt.budget ? rt : { ...rt, provider, budget };
}

function budgetMeter(seat: SeatInfo, budgets: BudgetReport): BudgetMeterView {
  const own = budgets.seats.find((s) => s.handle === seat.handle);
  const seatMeter: Meter = own ? meter(own.cap, own.used, own.estimated_tokens) : meter(0, 0);
  return {
    window_start: budgets.window.start,
    window_end: budgets.window.end,
    seat: seatMeter,
    org: budgets.org,
    refused: seatMeter.refused ? 'seat' : budgets.org.refused ? 'org' : null,
  };
}

/**
 * The seat's pause: what its events say, or, when the event history holds no pause or resume of it (one
 * older than 30 days), the record the seat itself keeps for as long as the pause lasts.
 */
function withPause(rt: SeatRuntime | undefined, handle: string, ctx: RowContext): SeatRuntime | undefined {
  if (rt?.paused || rt?.pausedMs != null || !ctx.pauseRecord) return rt;
  const paused = ctx.pauseRecord(handle);
  if (paused === null) return rt;
  return { ...(rt ?? emptyRuntime()), paused };
}

/**
 * The seat's wait on people: what its events say, when they hold it; else the questions the seat's own log
 * holds open that no event of the history has spoken of since they were asked (the whole log when the
 * history holds no word of the seat's wait: the completion that announced it is older than 30 days).
 */
function withNeeds(rt: SeatRuntime | undefined, handle: string, ctx: RowContext): SeatRuntime | undefined {
  if (rt?.needs || !ctx.needsRecord) return rt;
  const said = rt?.needsMs ?? null;
  const open = ctx.needsRecord(handle).filter((q) => said === null || (instantMs(q.asked_at) ?? 0) > said);
  if (open.length === 0) return rt;
  const more = open.length - 1;
  const needs: StopCause = {
    since: open[0]!.asked_at,
    detail: open.at(-1)!.question + (more > 0 ? ` (and ${more} more question${more > 1 ? 's' : ''})` : ''),
    ids: open.map((q) => q.id),
  };
  return { ...(rt ?? emptyRuntime()), needs };
}

export function agentRow(seat: SeatInfo, events: SeatRuntime | undefined, ctx: RowContext) {
  const rt = withNeeds(withPause(events, seat.handle, ctx), seat.handle, ctx);
  const budget = budgetMeter(seat, ctx.budgets);
  const { activity, stopped_reason } = activityOf(
    current(rt, seat.handle, ctx),
    ctx.placed(seat.handle),
    budget.refused !== null,
  );
  return {
    id: seat.handle,
    role: seat.role,
    activity,
    stopped_reason,
    live_call: rt?.live_call ?? null,
    last_error: rt?.last_error ?? null,
    turn: rt?.turn ?? null,
    last_turn: rt?.last_turn ?? null,
    paused: rt?.paused ?? null,
    // The wait on people (beyond the spec's named fields, as `unit` is): its most urgent question, since when,
    // and the ids of the questions open (what needs/clear takes; none known for a wait reported without them).
    needs: rt?.needs ? { reason: rt.needs.detail, since: rt.needs.since, ids: rt.needs.ids ?? [] } : null,
    tokens: { window_hours: 24, ...(ctx.tokens.get(seat.handle) ?? zeroFull()) },
    budget,
    agent_id: seat.agent_id,
    unit: seat.unit,
  };
}
export type AgentRow = ReturnType<typeof agentRow>;

/** `/agents`: agent seats in document order; human seats excluded. */
export function agentRows(state: AgentsState, ctx: RowContext): AgentRow[] {
  return ctx.company.seats
    .filter((s) => s.kind === 'agent')
    .map((s) => agentRow(s, state.seats.get(s.handle), ctx));
}

/** `llm_history`: newest first, at most 50 rows, every recorded field. */
export function llmHistory(state: AgentsState, handle: string): HistoryRow[] {
  return (state.seats.get(handle)?.history ?? []).map((h) => h.row);
}

/**
 * An agent seat by handle (in any case: handles are lower-case, `ADA` is `ada`), role name or agent_id UUID
 * (any case); null for an unknown id and for a human seat. An exact handle or role name comes before a handle
 * in another case, and a handle before a UUID.
 */
export function agentSeat(company: CompanyModel, id: string): SeatInfo | null {
  // Among agent seats only: a human seat whose handle is an agent's name must not hide that agent.
  const agents = company.seats.filter((s) => s.kind === 'agent');
  const lower = id.toLowerCase();
  return (
    agents.find((s) => s.handle === id) ??
    agents.find((s) => s.role === id) ??
    agents.find((s) => s.handle === lower) ??
    // The seat's agent_id UUID as its /agents row gives it, in any case (the event reads take it too).
    agents.find((s) => s.agent_id === lower) ??
    null
  );
}
