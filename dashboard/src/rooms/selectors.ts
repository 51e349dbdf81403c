/** Reads over the live state that more than one room needs. */
import type { AgentRow, Org, OrgSeat, OrgUnit, Schedule, ScheduleRun, Snapshot } from '../live/types.js';

export function allSeats(org: Org | null | undefined): OrgSeat[] {
  const out: OrgSeat[] = [...(org?.roles ?? [])];
  const walk = (units: readonly OrgUnit[] | undefined): void => {
    for (const unit of units ?? []) {
      out.push(...(unit.roles ?? []));
      walk(unit.children);
    }
  };
  walk(org?.units);
  return out;
}

/** Agent rows of seats the org still lists (an apply's `org` frame may come before its `seats`, which prunes). */
export function liveAgents(
  agents: Readonly<Record<string, AgentRow>>,
  org: Org | null | undefined,
): AgentRow[] {
  const seats = new Set(allSeats(org).map((s) => s.handle));
  return Object.values(agents).filter((row) => seats.size === 0 || seats.has(row.id));
}

/** The snapshot's `schedules` section, as the rooms select it. */
type SchedulesSection = Snapshot['schedules'] | undefined;

export function schedulesOf(section: SchedulesSection): Schedule[] {
  if (!section) return [];
  return Array.isArray(section) ? section : (section.schedules ?? []);
}

export function scheduleRunsOf(section: SchedulesSection): ScheduleRun[] {
  return !section || Array.isArray(section) ? [] : (section.recent_runs ?? []);
}
