/**
 * The shapes the dashboard reads from the snapshot, the frames and the questions (spec "WebSocket and
 * snapshot", "Agent row", "Event record", "Org view"). Only the fields the rooms show are named; the
 * server's zod schemas stay the source of truth and anything unnamed is ignored.
 */

export interface Frame {
  readonly kind: string;
  readonly data: unknown;
  readonly ts: string;
  /** On a `snapshot` sent to a socket that lost frames (a resync): how many it lost. */
  readonly dropped?: number;
}

export interface Health {
  status: string;
  node: string;
  configured: boolean;
  version: string;
  started_at: string;
  queue: string;
  clients?: number;
  in_flight: number;
  posture: string;
  applied_epoch: number;
  seats: string[];
  nodes?: number;
  alarms?: { count: number; worst?: string };
  stall_lag_seconds?: number;
}

export interface ToolExecution {
  name?: string;
  tool?: string;
  arguments?: unknown;
  result?: unknown;
  error?: unknown;
  started_at?: string;
  duration_ms?: number;
  origin?: string;
}

export interface Round {
  round: number;
  started_at?: string;
  duration_ms?: number;
  model?: string;
  input_tokens?: number;
  output_tokens?: number;
  tool_calls?: number;
}

/** The call running now in a live phase: a model's (`origin: model`) or a tool's. */
export interface RunningCall {
  name: string;
  started_at?: string;
  origin?: string;
  server?: string | null;
}

export interface LiveCall {
  turn_id: string;
  phase: string;
  iteration: number;
  model?: string;
  response?: string;
  tool_executions?: ToolExecution[];
  rounds?: Round[] | number;
  in_progress?: boolean;
  round_narration?: string;
  partial_round?: unknown;
  max_rounds?: number;
  running_call?: RunningCall | null;
  failed?: boolean;
}

export interface HistoryRow extends LiveCall {
  total_tokens?: number;
  timestamp?: string;
  duration_ms?: number;
  started_at?: string;
}

export interface Meter {
  cap: number;
  used: number;
  remaining: number | null;
  ratio: number | null;
  refused: boolean;
  /** Of `used`, the tokens of spend whose counts are estimated (absent from a node of an earlier release). */
  estimated_tokens?: number;
}

export type Activity = 'working' | 'needs' | 'stopped' | 'idle';

export interface AgentRow {
  id: string;
  role: string;
  activity: Activity;
  stopped_reason: string | null;
  live_call: LiveCall | null;
  last_error: unknown;
  paused: { by: string; at: string; reason?: string; stop_running?: boolean } | null;
  /** The wait on people: its most urgent question (with how many more), since when; null when none. */
  needs?: { reason: string; since: string } | null;
  tokens?: { total_tokens: number; input_tokens: number; output_tokens: number; calls: number };
  budget?: { seat: Meter; org: Meter };
  agent_id?: string;
  unit?: string | null;
  llm_history?: HistoryRow[];
  turn?: unknown;
  last_turn?: unknown;
}

export interface EventRow {
  id: string;
  type: string;
  source: string;
  timestamp: string;
  category: string;
  summary: string;
  actor: string | null;
  trace_id: string | null;
  span_id?: string | null;
  failed: boolean;
  agent_id?: string;
  payload?: unknown;
}

export interface OrgSeat {
  name: string;
  handle: string;
  kind: 'agent' | 'human';
  unit: string | null;
  goal?: string;
  lead_of?: string[];
  llm?: Array<{ key: string; type: string; model: string }>;
  tool_sources?: string[];
  token_budget?: number;
}

export interface OrgUnit {
  name: string;
  type?: string;
  lead?: string;
  lead_handle?: string;
  roles?: OrgSeat[];
  children?: OrgUnit[];
}

export interface Org {
  name?: string;
  mission?: string;
  vision?: string;
  policies?: string[];
  timezone?: string;
  token_budget?: number;
  revision_id?: string;
  roles?: OrgSeat[];
  units?: OrgUnit[];
}

export interface Tool {
  name: string;
  description?: string;
  source: string;
  delivers?: string;
  annotations?: Record<string, unknown>;
}

export interface Schedule {
  scope_type: string;
  scope_id: string;
  name: string;
  cron: string;
  timezone?: string;
  task?: string;
  target?: string;
  enabled: boolean;
  runners?: string[];
  next_run?: string | null;
}

/** One run of the schedules ledger. */
export interface ScheduleRun {
  scope_type: string;
  scope_id: string;
  schedule_name: string;
  target_handle: string;
  scheduled_at: string;
  fired_at: string | null;
  outcome: string;
}

export interface TokenTotals {
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  calls: number;
  /** Of `total_tokens`, those of spend whose counts are estimated (absent from a node of an earlier release). */
  estimated_tokens?: number;
}

export interface TokensSection {
  window_hours?: number;
  totals?: TokenTotals;
  by_phase?: Array<TokenTotals & { phase: string }>;
  by_model?: Array<TokenTotals & { model: string }>;
  by_agent?: Array<TokenTotals & { handle?: string; role?: string }>;
}

export interface Budget extends Meter {
  window?: { kind: string; start: string; end: string; timezone?: string };
}

/** A coding run not yet ended (spec "Other resources", Sandbox run). */
export interface SandboxRun {
  turn_id: string;
  role: string;
  agent_handle: string;
  agent_id: string;
  coding_agent: string;
  sandbox_id: string;
  task: string;
  status: string;
  started_at: string;
  question: string | null;
  audience: string | null;
  work_item: string | null;
  owner: string | null;
  paused_at: string | null;
  /** What its telemetry receiver accepted: exports per signal, and spans; null until its record is read. */
  telemetry?: { traces: number; metrics: number; logs: number; spans: number } | null;
}

export interface Snapshot {
  health: Health | null;
  agents: Record<string, AgentRow>;
  events: EventRow[];
  sandboxes: SandboxRun[];
  tools: Tool[];
  org: Org | null;
  tokens: TokensSection | null;
  budget: Budget | null;
  /** The `schedules` answer, pushed whole on every configuration apply and every run the ledger records. */
  schedules: { schedules?: Schedule[]; recent_runs?: ScheduleRun[] } | Schedule[] | null;
  seats?: unknown;
}

/** A refusal from the query channel or a route: the spec's error code and its detail. */
export class QueryRefused extends Error {
  override readonly name = 'QueryRefused';
  constructor(
    readonly code: string,
    detail?: string,
    /** Its class (`not_found`, `unauthorized`, …): the socket's `error`, or an HTTP status's. */
    readonly kind: string = code,
    /** The node's advice on what to do about it, when it gave one. */
    readonly hint?: string,
  ) {
    super(detail ?? code);
  }
}
