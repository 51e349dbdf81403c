/** A seat's turns: the one in flight as it streams, and its recorded phases (`llm_history`). */
import type { HistoryRow, LiveCall, RunningCall, ToolExecution } from '../live/types.js';
import { count, duration, time } from '../ui/format.js';
import { Badge, Table } from '../ui/parts.js';
import { Ago } from '../ui/ago.js';

const roundsOf = (call: LiveCall): number =>
  Array.isArray(call.rounds) ? call.rounds.length : typeof call.rounds === 'number' ? call.rounds : 0;

function toolName(t: ToolExecution): string {
  return t.name ?? t.tool ?? 'tool';
}

/** The tool call running now, if any: a model call running is the status line's, not the tool list's. */
const runningTool = (call: LiveCall): RunningCall | null =>
  call.running_call && call.running_call.origin !== 'model' ? call.running_call : null;

/**
 * A finished call's time. Every listed execution is done (the running one is `running_call`); `duration_ms`
 * 0 or absent is a time not measured (spec "Agent row"), never a call still running.
 */
function ToolTime(props: { ms: number | undefined }) {
  return props.ms ? (
    <span class="muted">{duration(props.ms)}</span>
  ) : (
    <span class="muted">time not measured</span>
  );
}

export function LiveTurn(props: { call: LiveCall | null }) {
  const call = props.call;
  // Two polite live regions, neither per token: the status line (a turn, a phase or a round begins or ends),
  // kept in the page between turns, and the response, busy while it streams so it is read once, whole, when
  // its phase settles. The tool list is not live.
  if (!call)
    return (
      <div class="live-turn">
        <p role="status" class="muted">
          No turn in flight.
        </p>
      </div>
    );
  const running = runningTool(call);
  return (
    <div class="live-turn">
      <p role="status">
        <Badge value={call.phase} /> round {roundsOf(call) || 1}
        {call.max_rounds ? ` of ${call.max_rounds}` : ''} · iteration {call.iteration}
        {call.model ? ` · ${call.model}` : ''} {call.in_progress ? <Badge value="working" /> : null}
        {call.failed ? <Badge value="failed" /> : null}
      </p>
      {call.round_narration ? <p class="muted">{call.round_narration}</p> : null}
      <pre
        class="response"
        data-testid="live-response"
        aria-live="polite"
        aria-atomic="true"
        aria-busy={call.in_progress === true}
      >
        {call.response ?? ''}
      </pre>
      {call.tool_executions?.length || running ? (
        <ol class="tools-run">
          {(call.tool_executions ?? []).map((t, i) => (
            <li key={i}>
              <code>{toolName(t)}</code> {t.origin ? <span class="muted">{t.origin}</span> : null}{' '}
              <ToolTime ms={t.duration_ms} />
            </li>
          ))}
          {running ? (
            <li key="running">
              <code>{running.name}</code>{' '}
              {running.origin ? <span class="muted">{running.origin}</span> : null}{' '}
              {/* A phase that died keeps the call it died in (spec "Agent row": `failed`): over, not running. */}
              <Badge value={call.failed ? 'failed' : 'working'} />{' '}
              {running.started_at ? (
                <span class="muted" title={time(running.started_at)}>
                  started <Ago at={running.started_at} />
                </span>
              ) : null}
            </li>
          ) : null}
        </ol>
      ) : null}
    </div>
  );
}

export function History(props: { rows: HistoryRow[] }) {
  return (
    <Table
      caption="Phases, newest first"
      rows={props.rows}
      rowKey={(r) => `${r.turn_id}-${r.phase}-${r.iteration}-${r.timestamp ?? ''}`}
      empty="No phases recorded yet."
      columns={[
        {
          label: 'when',
          cell: (r) => (
            <span title={time(r.timestamp)}>
              <Ago at={r.timestamp} />
            </span>
          ),
        },
        { label: 'phase', cell: (r) => <Badge value={r.failed ? 'failed' : r.phase} title={r.phase} /> },
        { label: 'rounds', cell: (r) => roundsOf(r), numeric: true },
        { label: 'tokens', cell: (r) => count(r.total_tokens), numeric: true },
        // 0 is a time not measured (spec "Agent row"), absent one not recorded: told apart, as the tool list does.
        {
          label: 'duration',
          cell: (r) =>
            r.duration_ms === 0 ? <span class="muted">not measured</span> : duration(r.duration_ms),
          numeric: true,
        },
        { label: 'model', cell: (r) => r.model ?? '—' },
        { label: 'tools', cell: (r) => (r.tool_executions ?? []).map(toolName).join(', ') || '—' },
      ]}
    />
  );
}
