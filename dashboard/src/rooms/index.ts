/** The rooms, in the order the menu and the number keys list them (rooms past ten have a letter key). */
import type { FunctionComponent } from 'preact';
import type { Route } from '../router.js';
import { BoardRoom } from './board.js';
import { ConfigRoom } from './config.js';
import { Feed } from './feed.js';
import { FleetRoom } from './fleet.js';
import { Integrations } from './integrations.js';
import { OrgChart } from './org.js';
import { PagesRoom } from './pages.js';
import { Overview } from './overview.js';
import { Schedules } from './schedules.js';
import { SeatRoom } from './seat.js';
import { Spend } from './spend.js';
import { Tools } from './tools.js';
import { WorkItemRoom } from './work-item.js';

export interface Room {
  readonly id: string;
  readonly label: string;
  readonly view: FunctionComponent<{ route: Route }>;
  /** Its key when it is not among the first ten (those are 1–9 and 0). */
  readonly key?: string;
  /** Not in the menu: reached by links, shown as the room named here (`#/work/ENG-1` under Board). */
  readonly under?: string;
  /** Its first path segment names what it shows (a handle, a key): the page title says it. */
  readonly titled?: boolean;
}

export const rooms: readonly Room[] = [
  { id: 'overview', label: 'Overview', view: Overview },
  { id: 'org', label: 'Org chart', view: OrgChart },
  { id: 'seat', label: 'Seat', view: SeatRoom, titled: true },
  { id: 'feed', label: 'Feed', view: Feed },
  { id: 'spend', label: 'Spend', view: Spend },
  { id: 'schedules', label: 'Schedules', view: Schedules },
  { id: 'integrations', label: 'Integrations', view: Integrations },
  { id: 'config', label: 'Config', view: ConfigRoom },
  { id: 'tools', label: 'Tools', view: Tools },
  { id: 'fleet', label: 'Fleet', view: FleetRoom },
  { id: 'board', label: 'Board', view: BoardRoom, key: 'b' },
  { id: 'pages', label: 'Pages', view: PagesRoom, key: 'p' },
  { id: 'work', label: 'Work item', view: WorkItemRoom, under: 'board', titled: true },
];

/** The rooms the menu lists, each with the key that opens it. */
export const menu: ReadonlyArray<Room & { readonly shortcut: string }> = rooms
  .filter((r) => r.under === undefined)
  .map((r, i) => ({ ...r, shortcut: r.key ?? (i < 10 ? String((i + 1) % 10) : '') }));
