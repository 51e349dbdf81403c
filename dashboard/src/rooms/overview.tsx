/** Overview: health, posture, applied epoch, nodes, alarms, the org budget meter and the last 24 h of spend. */
import { useLive } from '../live/context.js';
import { href } from '../router.js';
import { count, time } from '../ui/format.js';
import { Badge, Card, MeterBar, Stat, Unread } from '../ui/parts.js';
import { CodingRuns } from './coding-runs.js';
import { liveAgents } from './selectors.js';
import { Ago } from '../ui/ago.js';

export function Overview() {
  const live = useLive();
  const { snapshot } = live;
  if (snapshot === null) return <Unread live={live} />;
  const health = snapshot?.health;
  const agents = liveAgents(snapshot);
  const byActivity = (a: string): number => agents.filter((r) => r.activity === a).length;
  const totals = snapshot?.tokens?.totals;
  return (
    <div class="grid">
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
      <Card title="Seats">
        <div class="stats">
          <Stat label="agent seats" value={agents.length} />
          <Stat label="working" value={byActivity('working')} tone="busy" />
          <Stat label="needs" value={byActivity('needs')} tone="warn" />
          <Stat label="stopped" value={byActivity('stopped')} tone={byActivity('stopped') > 0 ? 'bad' : ''} />
          <Stat label="idle" value={byActivity('idle')} />
          <Stat label="held here" value={health?.seats.length ?? 0} />
        </div>
        <p>
          <a href={href('org')}>Open the org chart</a>
        </p>
      </Card>
      <Card title="Budget">
        <MeterBar label="Org tokens this window" meter={snapshot?.budget} />
        {snapshot?.budget?.window ? (
          <p class="muted">
            {snapshot.budget.window.kind} window
            {snapshot.budget.window.timezone ? ` (${snapshot.budget.window.timezone})` : ''} until{' '}
            {time(snapshot.budget.window.end, snapshot.budget.window.timezone)}
          </p>
        ) : null}
      </Card>
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
      <Card title="Coding runs" wide>
        <CodingRuns runs={snapshot.sandboxes} />
      </Card>
      <Card title="Latest events" wide>
        {snapshot.events.length === 0 ? (
          <p class="muted">No events yet: they show here as they happen.</p>
        ) : null}
        <ul class="events-mini">
          {(snapshot?.events ?? []).slice(0, 8).map((e) => (
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
    </div>
  );
}
