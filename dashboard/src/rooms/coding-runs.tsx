/**
 * The live coding runs (the snapshot's `sandboxes`): which seat, which coding agent, what, since when, what it
 * asks, what its telemetry receiver accepted; and, with an operator token, a cancel (`POST /sandbox-runs/{id}/cancel`) behind a confirm step.
 */
import type { ComponentChildren } from 'preact';
import { useRef, useState } from 'preact/hooks';
import { useConnection } from '../live/context.js';
import type { SandboxRun } from '../live/types.js';
import { href } from '../router.js';
import { ConfirmAction, OutcomeStatus, type Outcome } from '../ui/confirm.js';
import { time } from '../ui/format.js';
import { Badge, Table, type Column } from '../ui/parts.js';
import { Ago } from '../ui/ago.js';

/** The question a paused run put, and to whom; a run asking nothing says so. */
function Question(props: { run: SandboxRun }) {
  const { question, audience, paused_at: paused } = props.run;
  if (!question) return <>—</>;
  return (
    <>
      {question}
      <span class="muted">
        {' '}
        · asks {audience ?? 'its seat'}
        {paused ? (
          <>
            {' '}
            <span title={time(paused)}>
              <Ago at={paused} />
            </span>
          </>
        ) : null}
      </span>
    </>
  );
}

/** What the run's telemetry receiver accepted: spans, and exports per signal (not the records in them). */
function telemetryText(run: SandboxRun): string {
  const c = run.telemetry;
  if (!c) return '—';
  return `${c.spans} spans · exports: ${c.traces} trace, ${c.metrics} metric, ${c.logs} log`;
}

/** Every listed run is live (launching, running, asking, resumed): each can be cancelled. */
const columns = (
  withSeat: boolean,
  cancel: (run: SandboxRun) => ComponentChildren,
): Array<Column<SandboxRun>> => [
  ...(withSeat
    ? [
        {
          label: 'seat',
          cell: (r: SandboxRun) => <a href={href('seat', r.agent_handle)}>{r.role || r.agent_handle}</a>,
        },
      ]
    : []),
  { label: 'coding agent', cell: (r) => r.coding_agent },
  { label: 'task', cell: (r) => r.task || '—' },
  { label: 'status', cell: (r) => <Badge value={r.status} /> },
  {
    label: 'since',
    cell: (r) => (
      <time dateTime={r.started_at} title={time(r.started_at)}>
        <Ago at={r.started_at} />
      </time>
    ),
  },
  { label: 'question', cell: (r) => <Question run={r} /> },
  {
    label: 'work item',
    cell: (r) => (r.work_item ? <a href={href('work', r.work_item)}>{r.work_item}</a> : '—'),
  },
  { label: 'telemetry', cell: telemetryText },
  { label: 'action', cell: cancel },
];

/** Every live run, or (given `seat`) that seat's; pushed whole by the node, so it moves as frames arrive. */
export function CodingRuns(props: { runs: readonly SandboxRun[]; seat?: string }) {
  const connection = useConnection();
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const said = useRef<HTMLParagraphElement>(null);
  const runs =
    props.seat === undefined ? props.runs : props.runs.filter((r) => r.agent_handle === props.seat);
  const cancel = async (run: SandboxRun, reason: string): Promise<void> => {
    const id = run.sandbox_id;
    try {
      const answer = (await connection.fetchJson(`/sandbox-runs/${encodeURIComponent(id)}/cancel`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(reason === '' ? {} : { reason }),
      })) as { run?: { status?: string }; changed?: boolean };
      setOutcome({
        text: answer.changed
          ? `Coding run ${id} is ${answer.run?.status ?? 'cancelled'}.`
          : `Coding run ${id} was already ${answer.run?.status ?? 'cancelled'}.`,
        refused: false,
      });
    } catch (err) {
      const refused = err as Error & { code?: string; hint?: string };
      setOutcome({
        text: `Coding run ${id} was not cancelled: ${refused.message}${refused.code && refused.code !== refused.message ? ` (${refused.code})` : ''}`,
        ...(refused.hint ? { hint: refused.hint } : {}),
        refused: true,
      });
    }
    // The row leaves once the run ends: the focus goes to what is said of it, not to the page.
    said.current?.focus();
  };
  const action = (run: SandboxRun) => (
    <ConfirmAction
      label="Cancel run"
      question={`Cancel coding run ${run.sandbox_id} (${run.task || 'no task'})? Its processes are stopped.`}
      confirm="Cancel the run"
      reason
      unavailable={connection.hasToken ? null : 'Cancelling a run needs an operator token.'}
      act={(reason) => cancel(run, reason)}
    />
  );
  return (
    <>
      <OutcomeStatus said={said} outcome={outcome} />
      {runs.length > 0 && !connection.hasToken ? (
        <p class="muted">Cancelling a run needs an operator token.</p>
      ) : null}
      <Table
        caption={
          props.seat === undefined ? 'Coding runs not yet ended' : 'This seat’s coding runs not yet ended'
        }
        rows={runs}
        rowKey={(r) => r.sandbox_id}
        empty={
          props.seat === undefined
            ? 'No coding run is going on: runs a seat hands to its coding agent show here until they end.'
            : 'No coding run is going on for this seat.'
        }
        columns={columns(props.seat === undefined, action)}
      />
    </>
  );
}
