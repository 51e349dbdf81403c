/** The rooms, in the order the menu and the number keys list them. */
import type { FunctionComponent } from 'preact';
import type { Route } from '../router.js';
import { ConfigRoom } from './config.js';
import { Feed } from './feed.js';
import { FleetRoom } from './fleet.js';
import { Integrations } from './integrations.js';
import { OrgChart } from './org.js';
import { Overview } from './overview.js';
import { Schedules } from './schedules.js';
import { SeatRoom } from './seat.js';
import { Spend } from './spend.js';
import { Tools } from './tools.js';

export interface Room {
  readonly id: string;
  readonly label: string;
  readonly view: FunctionComponent<{ route: Route }>;
}

export const rooms: readonly Room[] = [
  { id: 'overview', label: 'Overview', view: Overview },
  { id: 'org', label: 'Org chart', view: OrgChart },
  { id: 'seat', label: 'Seat', view: SeatRoom },
  { id: 'feed', label: 'Feed', view: Feed },
  { id: 'spend', label: 'Spend', view: Spend },
  { id: 'schedules', label: 'Schedules', view: Schedules },
  { id: 'integrations', label: 'Integrations', view: Integrations },
  { id: 'config', label: 'Config', view: ConfigRoom },
  { id: 'tools', label: 'Tools', view: Tools },
  { id: 'fleet', label: 'Fleet', view: FleetRoom },
];
