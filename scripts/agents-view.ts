/**
 * What `svc agents` prints for a person at a terminal: the node's agent rows (spec "Agent row",
 * projections/agents/agents.rows.ts), one agent with its recent LLM calls, the activity window and what a
 * pause, resume or clear changed. Each answer is read through the shape of only the fields printed
 * (cli-shape.ts): a node of another release may add fields, and one that lacks a printed field is named.
 */
import { bool, list, nullable, nullish, num, obj, readAnswer, str } from './cli-shape.js';
import { table } from './cli-table.js';

const Paused = obj({ by: str, at: str, reason: str, stop_running: bool });
const Meter = obj({ cap: num, used: num });

const rowFields = {
  id: str,
  role: str,
  activity: str,
  stopped_reason: nullable(str),
  paused: nullable(Paused),
  // Beyond the spec's named fields (as `unit` is): absent from a node of an earlier release.
  needs: nullish(obj({ reason: str, since: str })),
  turn: nullable(obj({ turn_id: str, started_at: str, phase: str, iteration: num, work_item: nullish(str) })),
  last_turn: nullable(
    obj({
      turn_id: str,
      ended_at: str,
      duration_ms: num,
      total_tokens: num,
      failed: bool,
      error: nullish(str),
    }),
  ),
  last_error: nullable(obj({ at: str, message: str, source: str })),
  live_call: nullable(
    obj({
      phase: str,
      iteration: num,
      model: str,
      in_progress: bool,
      failed: nullish(bool),
      rounds: list((v) => v),
      tool_executions: list((v) => v),
      max_rounds: nullish(num),
      running_call: nullish(obj({ name: str, started_at: str })),
    }),
  ),
  tokens: obj({ window_hours: num, total_tokens: num, input_tokens: num, output_tokens: num, calls: num }),
  budget: obj({ seat: Meter, org: Meter, refused: nullable(str) }),
  unit: nullish(str),
};
const AgentRow = obj(rowFields);
type AgentRow = ReturnType<typeof AgentRow>;

const AgentDetail = obj({
  ...rowFields,
  llm_history: list(
    obj({
      turn_id: str,
      phase: str,
      iteration: num,
      model: str,
      total_tokens: num,
      timestamp: str,
      failed: bool,
      duration_ms: num,
      tool_executions: list((v) => v),
    }),
  ),
  coverage: obj({ nodes: list(obj({ id: str, answered: bool, error: nullish(str) })), complete: bool }),
});

const Activity = obj({
  days: num,
  timezone: str,
  since: str,
  seats: list(
    obj({
      id: str,
      role: str,
      turns: num,
      failed: num,
      reviewed: num,
      first_pass_rate: nullable(num),
      duration_ms: obj({ p50: nullable(num), p90: nullable(num), max: nullable(num) }),
    }),
  ),
});

const PauseAnswer = obj({ id: str, paused: nullable(Paused), changed: bool });
const ClearAnswer = obj({ id: str, cleared: list(str), open: list(str) });

/**
 * Text from the node (a question an agent asked, an error message) as one table-safe line: control
 * characters a terminal would act on become spaces, runs of blanks one space, and past `max` it is cut.
 */
export function oneLine(value: string, max = Infinity): string {
  const flat = value.replace(/[\u0000-\u001f\u007f-\u009f\s]+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
}

const count = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;

const activityOf = (row: AgentRow): string =>
  row.activity === 'working' && row.turn
    ? `working: ${row.turn.phase}`
    : row.stopped_reason
      ? `${row.activity} (${row.stopped_reason})`
      : row.activity;

const pausedOf = (p: AgentRow['paused']): string =>
  p === null
    ? '-'
    : oneLine(`${p.by}${p.stop_running ? ', stop-running' : ''}${p.reason ? `: ${p.reason}` : ''}`, 40);

/** `used/cap`, or what was used and that no cap limits it (a cap of 0 is unlimited). */
const meter = (m: { cap: number; used: number }): string =>
  m.cap > 0 ? `${m.used}/${m.cap}` : `${m.used} (no cap)`;

/** `svc agents list`: one line per agent seat, what an operator scans for. */
export function agentsTable(raw: string): string {
  const rows = readAnswer(list(AgentRow), raw, 'a list of agent rows');
  if (rows.length === 0) return 'no agent seats (the active company document has none)\n';
  const lines = [
    ['SEAT', 'ROLE', 'ACTIVITY', 'PAUSED', 'WAITS ON PEOPLE', 'TOKENS 24H', 'BUDGET', 'LAST ERROR'],
  ];
  for (const row of rows)
    lines.push([
      row.id,
      oneLine(row.role, 24),
      activityOf(row),
      pausedOf(row.paused),
      row.needs ? oneLine(row.needs.reason, 48) : '-',
      String(row.tokens.total_tokens),
      `${meter(row.budget.seat)}${row.budget.refused ? ` refused:${row.budget.refused}` : ''}`,
      row.last_error ? oneLine(row.last_error.message, 40) : '-',
    ]);
  return `${table(lines)}\n`;
}

/** How many LLM calls `show` lists; --json has every row the node keeps (50). */
const historyShown = 10;

/** `svc agents show ID`: one agent, labelled lines, then its latest LLM calls. */
export function agentDetail(raw: string): string {
  const a = readAnswer(AgentDetail, raw, 'an agent');
  const lines: Array<[string, string]> = [
    ['seat', `${a.id} (role ${oneLine(a.role)}${a.unit ? `, unit ${a.unit}` : ''})`],
    ['activity', activityOf(a)],
  ];
  if (a.turn)
    lines.push([
      'turn',
      `${a.turn.turn_id}: ${a.turn.phase} #${a.turn.iteration} since ${a.turn.started_at}` +
        `${a.turn.work_item ? ` on ${a.turn.work_item}` : ''}`,
    ]);
  const p = a.paused;
  lines.push([
    'paused',
    p === null
      ? 'no'
      : `by ${p.by} at ${p.at}${p.reason ? `: ${oneLine(p.reason)}` : ''}${p.stop_running ? ' (stop-running: a running turn is cut)' : ''}`,
  ]);
  if (a.needs) lines.push(['waits on', `${oneLine(a.needs.reason)} (since ${a.needs.since})`]);
  const c = a.live_call;
  if (c) {
    const state = c.failed ? 'failed' : c.in_progress ? 'in progress' : 'finished';
    const rounds = `round ${c.rounds.length}${c.max_rounds ? ` of ${c.max_rounds}` : ''}`;
    const tool = c.running_call ? `; running ${c.running_call.name} since ${c.running_call.started_at}` : '';
    lines.push([
      'live call',
      `${c.phase} #${c.iteration} on ${c.model}, ${rounds}, ${count(c.tool_executions.length, 'tool call')}, ${state}${tool}`,
    ]);
  }
  const last = a.last_turn;
  lines.push([
    'last turn',
    last === null
      ? 'none'
      : `${last.turn_id} ended ${last.ended_at} after ${duration(last.duration_ms)}, ${last.total_tokens} tokens` +
        `${last.failed ? `, failed${last.error ? `: ${oneLine(last.error)}` : ''}` : ''}`,
  ]);
  if (a.last_error)
    lines.push([
      'last error',
      `${a.last_error.at} ${oneLine(a.last_error.message)} (${a.last_error.source})`,
    ]);
  const t = a.tokens;
  lines.push([
    `tokens ${t.window_hours}h`,
    `${t.total_tokens} (${t.input_tokens} in, ${t.output_tokens} out) over ${count(t.calls, 'call')}`,
  ]);
  lines.push([
    'budget',
    `seat ${meter(a.budget.seat)}, org ${meter(a.budget.org)}` +
      `${a.budget.refused ? `; turns refused by the ${a.budget.refused} cap` : ''}`,
  ]);
  const width = Math.max(...lines.map(([label]) => label.length));
  let said = lines.map(([label, value]) => `${label.padEnd(width)}  ${value}`).join('\n');
  const calls = a.llm_history.slice(0, historyShown);
  said +=
    calls.length === 0
      ? '\n\nno LLM calls recorded\n'
      : `\n\nLLM calls, newest first (${calls.length} of ${a.llm_history.length}):\n` +
        `${table([
          ['AT', 'TURN', 'PHASE', 'MODEL', 'TOKENS', 'TOOK', 'TOOLS', 'RESULT'],
          ...calls.map((h) => [
            h.timestamp,
            h.turn_id,
            `${h.phase} #${h.iteration}`,
            h.model,
            String(h.total_tokens),
            h.duration_ms === 0 ? '-' : duration(h.duration_ms),
            String(h.tool_executions.length),
            h.failed ? 'failed' : 'ok',
          ]),
        ])}\n`;
  const silent = a.coverage.nodes.filter((n) => !n.answered);
  if (!a.coverage.complete)
    said += `note: not every node answered (${silent.map((n) => `${n.id}${n.error ? `: ${n.error}` : ''}`).join(', ') || 'unknown'}); the seat's live state may be missing\n`;
  return said;
}

const rate = (r: number | null): string => (r === null ? '-' : `${Math.round(r * 100)}%`);
const ms = (v: number | null): string => (v === null ? '-' : duration(v));

/** `svc agents activity`: per seat over the window of company days. */
export function activityTable(raw: string): string {
  const a = readAnswer(Activity, raw, 'the agents activity');
  const rows = [['SEAT', 'ROLE', 'TURNS', 'FAILED', 'REVIEWED', 'FIRST PASS', 'P50', 'P90', 'MAX']];
  for (const s of a.seats)
    rows.push([
      s.id,
      oneLine(s.role, 24),
      String(s.turns),
      String(s.failed),
      String(s.reviewed),
      rate(s.first_pass_rate),
      ms(s.duration_ms.p50),
      ms(s.duration_ms.p90),
      ms(s.duration_ms.max),
    ]);
  return `${a.days} company days since ${a.since} (${a.timezone})\n${table(rows)}\n`;
}

/** What a pause or resume changed, from its `{id, paused, changed}` answer. */
export function pauseChange(raw: string, verb: 'pause' | 'resume'): string {
  const a = readAnswer(PauseAnswer, raw, `a ${verb} answer`);
  const p = a.paused;
  const pause =
    p === null
      ? ''
      : ` (by ${p.by} at ${p.at}${p.reason ? `: ${oneLine(p.reason)}` : ''}${p.stop_running ? '; stop-running' : ''})`;
  if (verb === 'pause')
    return a.changed ? `paused ${a.id}${pause}\n` : `${a.id} was already paused, nothing changed${pause}\n`;
  return a.changed ? `resumed ${a.id}\n` : `${a.id} was not paused, nothing changed${pause}\n`;
}

/** What a clear closed, what stays open, and which named questions were not open to clear. */
export function clearChange(raw: string, named: readonly string[]): string {
  const a = readAnswer(ClearAnswer, raw, 'a clear answer');
  const list = (ids: readonly string[]): string => (ids.length === 0 ? 'none' : ids.join(', '));
  const notOpen = named.filter((id) => !a.cleared.includes(id));
  return (
    (a.cleared.length === 0
      ? `nothing cleared on ${a.id}, nothing changed`
      : `cleared on ${a.id}: ${list(a.cleared)}`) +
    `; still open: ${list(a.open)}${notOpen.length > 0 ? `; not open: ${list(notOpen)}` : ''}\n`
  );
}
