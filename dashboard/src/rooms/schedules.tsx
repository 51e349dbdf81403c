/** Schedules: every schedule with its next run, and the ledger of recent runs. */
import { useLive, useQuestion } from '../live/context.js';
import type { Schedule } from '../live/types.js';
import { ago, time } from '../ui/format.js';
import { Answer, Badge, Card, Table } from '../ui/parts.js';

interface LedgerRow {
  scope_type: string;
  scope_id: string;
  schedule_name: string;
  target_handle: string;
  scheduled_at: string;
  fired_at: string | null;
  outcome: string;
}

export function Schedules() {
  const live = useLive();
  const asked = useQuestion<{ schedules: Schedule[]; recent_runs?: LedgerRow[] }>(
    'schedules',
    {},
    `${live.configTick}:${live.eventTick}`,
  );
  return (
    <Answer asked={asked} what="schedules">
      {(s) => (
        <div class="stack">
          <Card title="Schedules" wide>
            <Table
              caption="Next runs"
              rows={[...s.schedules].sort((a, b) => (a.next_run ?? '~').localeCompare(b.next_run ?? '~'))}
              rowKey={(r) => `${r.scope_type}/${r.scope_id}/${r.name}`}
              empty="No schedules in this company."
              columns={[
                { label: 'schedule', cell: (r) => r.name },
                { label: 'scope', cell: (r) => `${r.scope_type} ${r.scope_id}` },
                { label: 'cron', cell: (r) => <code>{r.cron}</code> },
                {
                  label: 'next run',
                  cell: (r) =>
                    r.enabled ? (
                      <span title={time(r.next_run)}>{ago(r.next_run)}</span>
                    ) : (
                      <Badge value="disabled" />
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
              rows={s.recent_runs ?? []}
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
      )}
    </Answer>
  );
}
