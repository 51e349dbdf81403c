/** Schedules: every schedule with its next run, and the ledger of recent runs. */
import { useLiveSlice } from '../live/context.js';
import { time } from '../ui/format.js';
import type { Schedule } from '../live/types.js';
import { Badge, Card, Table, Unread } from '../ui/parts.js';
import { scheduleRunsOf, schedulesOf } from './selectors.js';
import { Ago } from '../ui/ago.js';

/** Soonest first; a disabled schedule or one with no next run (the node sends `""`) last. */
const soonest = (s: Schedule): number => {
  const at = s.enabled && s.next_run ? Date.parse(s.next_run) : Number.NaN;
  return Number.isNaN(at) ? Number.POSITIVE_INFINITY : at;
};

/**
 * The node pushes the `schedules` section whole when a revision is applied (schedules come with the
 * configuration) and when the ledger records a run (the next run moves on): the room reads that section and
 * asks no question, so a burst of events costs it nothing.
 */
export function Schedules() {
  const section = useLiveSlice((s) => (s.snapshot === null ? null : s.snapshot.schedules));
  if (section === null) return <Unread />;
  const schedules = schedulesOf(section);
  const runs = scheduleRunsOf(section);
  return (
    <div class="stack">
      <Card title="Schedules" wide>
        <Table
          caption="Next runs"
          rows={[...schedules].sort((a, b) => soonest(a) - soonest(b))}
          rowKey={(r) => `${r.scope_type}/${r.scope_id}/${r.name}`}
          empty="No schedules in this company."
          many="schedules"
          columns={[
            { label: 'schedule', cell: (r) => r.name },
            { label: 'scope', cell: (r) => `${r.scope_type} ${r.scope_id}` },
            {
              label: 'cron',
              cell: (r) => (
                <>
                  <code>{r.cron}</code>
                  {r.timezone ? <span class="muted"> {r.timezone}</span> : null}
                </>
              ),
            },
            {
              label: 'next run',
              cell: (r) =>
                !r.enabled ? (
                  <Badge value="disabled" />
                ) : r.next_run ? (
                  <>
                    <Ago at={r.next_run} /> <span class="muted">{time(r.next_run, r.timezone)}</span>
                  </>
                ) : (
                  '—'
                ),
            },
            { label: 'runs as', cell: (r) => (r.runners ?? []).join(', ') || '—' },
            { label: 'task', cell: (r) => r.task ?? '' },
          ]}
        />
      </Card>
      <Card title="Ledger" wide>
        <Table
          caption="Recent runs"
          rows={runs}
          rowKey={(r) => `${r.scope_id}/${r.schedule_name}/${r.scheduled_at}/${r.target_handle}`}
          empty="No runs recorded yet."
          columns={[
            { label: 'schedule', cell: (r) => r.schedule_name },
            { label: 'seat', cell: (r) => r.target_handle },
            { label: 'scheduled', cell: (r) => time(r.scheduled_at) },
            { label: 'fired', cell: (r) => time(r.fired_at) },
            { label: 'outcome', cell: (r) => <Badge value={r.outcome} /> },
          ]}
        />
      </Card>
    </div>
  );
}
