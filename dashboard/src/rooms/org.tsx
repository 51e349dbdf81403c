/**
 * Org chart: units nested to any depth, their leads, seats and humans, each seat's activity. A large company
 * opens with its units collapsed (a count each) and renders a unit's seats only once it is opened: a first
 * view of hundreds of seats costs their units, not every seat.
 */
import { useState } from 'preact/hooks';
import { useLiveSlice } from '../live/context.js';
import type { AgentRow, OrgSeat, OrgUnit } from '../live/types.js';
import { href } from '../router.js';
import { clip } from '../ui/format.js';
import { Badge, Card, Unread } from '../ui/parts.js';
import { LongText } from '../ui/long-text.js';
import { allSeats } from './selectors.js';

/** Up to this many seats every unit opens expanded; above it, collapsed. */
const EXPANDED_UP_TO = 100;
/** A waiting seat's question is cut to this many characters in the chart (whole in its title and seat room). */
const QUESTION_CHARS = 80;

function SeatItem(props: { seat: OrgSeat; row: AgentRow | undefined; lead: boolean }) {
  const { seat, row } = props;
  const activity = seat.kind === 'human' ? 'human' : (row?.activity ?? 'idle');
  const reason = row?.activity === 'stopped' && row.stopped_reason ? ` (${row.stopped_reason})` : '';
  return (
    <li class="seat" data-handle={seat.handle}>
      <a href={href('seat', seat.handle)}>{seat.name}</a>
      {props.lead ? (
        <span class="lead-mark" title="unit lead">
          lead
        </span>
      ) : null}
      <Badge value={activity} title={seat.kind === 'human' ? 'human seat' : `activity${reason}`} />
      {reason ? <span class="muted">{reason}</span> : null}
      {row?.activity === 'needs' && row.needs ? (
        <div class="asks" title={row.needs.reason}>
          asks: {clip(row.needs.reason, QUESTION_CHARS)}
        </div>
      ) : null}
      {row?.live_call ? <span class="muted"> {row.live_call.phase}</span> : null}
      {seat.goal ? (
        <div class="goal muted">
          <LongText text={seat.goal} what="the goal" limit={300} />
        </div>
      ) : null}
    </li>
  );
}

function UnitHead(props: { unit: OrgUnit }) {
  const { unit } = props;
  return (
    <>
      <strong>{unit.name}</strong> {unit.type ? <span class="muted">{unit.type}</span> : null}
      {unit.lead ? <span class="muted"> · led by {unit.lead}</span> : null}
    </>
  );
}

function UnitNode(props: { unit: OrgUnit; agents: Record<string, AgentRow>; collapsed: boolean }) {
  const { unit, agents, collapsed } = props;
  const [open, setOpen] = useState(!collapsed);
  const roles = unit.roles ?? [];
  const seats = open ? (
    <ul class="seats">
      {roles.map((seat) => (
        <SeatItem
          key={seat.handle}
          seat={seat}
          row={agents[seat.handle]}
          lead={seat.handle === unit.lead_handle}
        />
      ))}
    </ul>
  ) : null;
  const active = collapsed
    ? roles.filter((seat) => {
        const activity = agents[seat.handle]?.activity;
        return activity !== undefined && activity !== 'idle';
      }).length
    : 0;
  return (
    <li class="unit" data-unit={unit.name}>
      {collapsed ? (
        <details open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
          <summary class="unit-head">
            <UnitHead unit={unit} />
            <span class="muted">
              {' '}
              · {roles.length} seats{active > 0 ? ` · ${active} not idle` : ''}
            </span>
          </summary>
          {seats}
        </details>
      ) : (
        <>
          <div class="unit-head">
            <UnitHead unit={unit} />
          </div>
          {seats}
        </>
      )}
      {unit.children && unit.children.length > 0 ? (
        <ul class="units">
          {unit.children.map((child) => (
            <UnitNode key={child.name} unit={child} agents={agents} collapsed={collapsed} />
          ))}
        </ul>
      ) : null}
    </li>
  );
}

export function OrgChart() {
  const live = useLiveSlice((s) => ({
    unread: s.snapshot === null,
    org: s.snapshot?.org,
    agents: s.snapshot?.agents,
  }));
  if (live.unread) return <Unread />;
  const org = live.org;
  if (!org || (!org.roles?.length && !org.units?.length))
    return <p class="muted">No company is configured on this node yet.</p>;
  const agents = live.agents ?? {};
  const collapsed = allSeats(org).length > EXPANDED_UP_TO;
  return (
    <div class="stack">
      <Card title={org.name ?? 'Company'} wide>
        {org.mission ? (
          <p>
            <LongText text={org.mission} what="the mission" />
          </p>
        ) : null}
        {org.vision ? (
          <p class="muted">
            <LongText text={org.vision} what="the vision" />
          </p>
        ) : null}
        {org.policies?.length ? (
          <details>
            <summary>Policies ({org.policies.length})</summary>
            <ul>
              {/* Two policies may read the same: keyed by place, not by text. */}
              {org.policies.map((p, i) => (
                <li key={i}>
                  <LongText text={p} what={`policy ${i + 1}`} />
                </li>
              ))}
            </ul>
          </details>
        ) : null}
      </Card>
      <section class="org" aria-label="Org chart">
        {org.roles?.length ? (
          <ul class="seats top-seats">
            {org.roles.map((seat) => (
              <SeatItem key={seat.handle} seat={seat} row={agents[seat.handle]} lead={false} />
            ))}
          </ul>
        ) : null}
        <ul class="units">
          {(org.units ?? []).map((unit) => (
            <UnitNode key={unit.name} unit={unit} agents={agents} collapsed={collapsed} />
          ))}
        </ul>
      </section>
    </div>
  );
}
