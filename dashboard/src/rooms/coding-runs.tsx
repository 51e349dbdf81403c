/** The live coding runs (the snapshot's `sandboxes`): which seat, which coding agent, what, since when, what it asks. */
import type { SandboxRun } from '../live/types.js';
import { href } from '../router.js';
import { ago, time } from '../ui/format.js';
import { Badge, Table, type Column } from '../ui/parts.js';

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
            <span title={time(paused)}>{ago(paused)}</span>
          </>
        ) : null}
      </span>
    </>
  );
}

const columns = (withSeat: boolean): Array<Column<SandboxRun>> => [
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
        {ago(r.started_at)}
      </time>
    ),
  },
  { label: 'question', cell: (r) => <Question run={r} /> },
  {
    label: 'work item',
    cell: (r) => (r.work_item ? <a href={href('work', r.work_item)}>{r.work_item}</a> : '—'),
  },
];

/** Every live run, or (given `seat`) that seat's; pushed whole by the node, so it moves as frames arrive. */
export function CodingRuns(props: { runs: readonly SandboxRun[]; seat?: string }) {
  const runs =
    props.seat === undefined ? props.runs : props.runs.filter((r) => r.agent_handle === props.seat);
  return (
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
      columns={columns(props.seat === undefined)}
    />
  );
}
