/** Org chart: units nested to any depth, their leads, seats and humans, each seat's activity. */
import { useLive } from '../live/context.js';
import type { AgentRow, OrgSeat, OrgUnit } from '../live/types.js';
import { href } from '../router.js';
import { Badge, Card } from '../ui/parts.js';

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
      {row?.live_call ? <span class="muted"> {row.live_call.phase}</span> : null}
      {seat.goal ? <div class="goal muted">{seat.goal}</div> : null}
    </li>
  );
}

function UnitNode(props: { unit: OrgUnit; agents: Record<string, AgentRow> }) {
  const { unit, agents } = props;
  return (
    <li class="unit">
      <div class="unit-head">
        <strong>{unit.name}</strong> {unit.type ? <span class="muted">{unit.type}</span> : null}
        {unit.lead ? <span class="muted"> · led by {unit.lead}</span> : null}
      </div>
      <ul class="seats">
        {(unit.roles ?? []).map((seat) => (
          <SeatItem
            key={seat.handle}
            seat={seat}
            row={agents[seat.handle]}
            lead={seat.handle === unit.lead_handle}
          />
        ))}
      </ul>
      {unit.children && unit.children.length > 0 ? (
        <ul class="units">
          {unit.children.map((child) => (
            <UnitNode key={child.name} unit={child} agents={agents} />
          ))}
        </ul>
      ) : null}
    </li>
  );
}

export function OrgChart() {
  const { snapshot } = useLive();
  const org = snapshot?.org;
  if (!org || (!org.roles?.length && !org.units?.length))
    return <p class="muted">No company is configured on this node yet.</p>;
  const agents = snapshot.agents;
  return (
    <div class="stack">
      <Card title={org.name ?? 'Company'} wide>
        {org.mission ? <p>{org.mission}</p> : null}
        {org.vision ? <p class="muted">{org.vision}</p> : null}
        {org.policies?.length ? (
          <details>
            <summary>Policies ({org.policies.length})</summary>
            <ul>
              {org.policies.map((p) => (
                <li key={p}>{p}</li>
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
            <UnitNode key={unit.name} unit={unit} agents={agents} />
          ))}
        </ul>
      </section>
    </div>
  );
}
