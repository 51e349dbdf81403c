/**
 * Overview: health, posture, applied epoch, nodes, alarms, the org budget meter and the last 24 h of spend.
 * Each card follows the sections it shows, so the 5 s health pulse redraws the node's card and not the
 * latest events, and an event redraws those and not the node's.
 */
import { useLiveSlice } from '../live/context.js';
import { href } from '../router.js';
import { count, time } from '../ui/format.js';
import { Badge, Card, MeterBar, Stat, Unread } from '../ui/parts.js';
import { CodingRuns } from './coding-runs.js';
import { liveAgents } from './selectors.js';
import { Ago } from '../ui/ago.js';

export function Overview() {
  const unread = useLiveSlice((s) => s.snapshot === null);
  if (unread) return <Unread />;
  return (
    <div class="grid">
      <NodeCard />
      <SeatsCard />
      <BudgetCard />
      <SpendCard />
      <RunsCard />
      <EventsCard />
    </div>
  );
}

function NodeCard() {
  const health = useLiveSlice((s) => s.snapshot?.health);
  return (
    <Card title="Node">
      {health ? (
        <div class="stats">
          <Stat label="status" value={<Badge value={health.status} />} />
          <Stat label="posture" value={<Badge value={health.posture} />} />
          <Stat label="applied epoch" value={health.applied_epoch} />
          <Stat label="nodes" value={health.nodes ?? '—'} />
          <Stat
            label="alarms"
            value={
              health.alarms
                ? `${health.alarms.count}${health.alarms.worst ? ` (${health.alarms.worst})` : ''}`
                : '—'
            }
            tone={health.alarms && health.alarms.count > 0 ? 'bad' : ''}
          />
          <Stat label="dashboards" value={health.clients ?? '—'} />
          <Stat label="queue" value={health.queue} />
          <Stat label="version" value={health.version} />
          <Stat
            label="started"
            value={
              <span title={time(health.started_at)}>
                <Ago at={health.started_at} />
              </span>
            }
          />
        </div>
      ) : (
        <p class="muted">Waiting for the node…</p>
      )}
    </Card>
  );
}

function SeatsCard() {
  const live = useLiveSlice((s) => ({
    agents: s.snapshot?.agents,
    org: s.snapshot?.org,
    held: s.snapshot?.health?.seats.length ?? 0,
  }));
  const agents = liveAgents(live.agents ?? {}, live.org);
  const byActivity = (a: string): number => agents.filter((r) => r.activity === a).length;
  return (
    <Card title="Seats">
      <div class="stats">
        <Stat label="agent seats" value={agents.length} />
        <Stat label="working" value={byActivity('working')} tone="busy" />
        <Stat label="needs" value={byActivity('needs')} tone="warn" />
        <Stat label="stopped" value={byActivity('stopped')} tone={byActivity('stopped') > 0 ? 'bad' : ''} />
        <Stat label="idle" value={byActivity('idle')} />
        <Stat label="held here" value={live.held} />
      </div>
      <p>
        <a href={href('org')}>Open the org chart</a>
      </p>
    </Card>
  );
}

function BudgetCard() {
  const budget = useLiveSlice((s) => s.snapshot?.budget);
  return (
    <Card title="Budget">
      <MeterBar label="Org tokens this window" meter={budget} />
      {budget?.window ? (
        <p class="muted">
          {budget.window.kind} window
          {budget.window.timezone ? ` (${budget.window.timezone})` : ''} until{' '}
          {time(budget.window.end, budget.window.timezone)}
        </p>
      ) : null}
    </Card>
  );
}

function SpendCard() {
  const totals = useLiveSlice((s) => s.snapshot?.tokens)?.totals;
  return (
    <Card title="Spend, last 24 h">
      <div class="stats">
        <Stat label="total tokens" value={count(totals?.total_tokens)} />
        <Stat label="input" value={count(totals?.input_tokens)} />
        <Stat label="output" value={count(totals?.output_tokens)} />
        <Stat label="calls" value={count(totals?.calls)} />
      </div>
      <p>
        <a href={href('spend')}>Open spend</a>
      </p>
    </Card>
  );
}

function RunsCard() {
  const sandboxes = useLiveSlice((s) => s.snapshot?.sandboxes);
  return (
    <Card title="Coding runs" wide>
      <CodingRuns runs={sandboxes ?? []} />
    </Card>
  );
}

function EventsCard() {
  const events = useLiveSlice((s) => s.snapshot?.events) ?? [];
  return (
    <Card title="Latest events" wide>
      {events.length === 0 ? <p class="muted">No events yet: they show here as they happen.</p> : null}
      <ul class="events-mini">
        {events.slice(0, 8).map((e) => (
          <li key={e.id}>
            <time dateTime={e.timestamp}>
              <Ago at={e.timestamp} />
            </time>{' '}
            <Badge value={e.category} />{' '}
            {e.failed ? (
              <>
                <Badge value="failed" />{' '}
              </>
            ) : null}
            <span class={e.failed ? 'failed' : ''}>{e.summary || e.type}</span>
          </li>
        ))}
      </ul>
      <p>
        <a href={href('feed')}>Open the feed</a>
      </p>
    </Card>
  );
}
