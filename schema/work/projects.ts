/**
 * Projects come from units: a unit that declares `integrations.work.project` (ops/work-tracker.md
 * "Projects") owns that project; its name is the unit's, its lead the unit's lead. Read from the active
 * company document, so a project appears and is archived through a configuration change.
 */
import { walkDocument } from '../company/walk.js';
import { isRecord } from '../json.js';
import { PROJECT_KEY } from '../text-grammars.js';

export interface WorkProject {
  readonly key: string;
  readonly name: string;
  readonly unit: string | null;
  readonly lead: string | null;
  readonly description: string | null;
  /** YYYY-MM-DD, or null. */
  readonly target_date: string | null;
  readonly archived: boolean;
  /** Handles of the seats placed in the unit. */
  readonly members: readonly string[];
}

/** The projects the document declares, first declaration of a key winning (validation warns of the others: `duplicate_project`). */
export function projectsOf(document: unknown): WorkProject[] {
  if (!isRecord(document)) return [];
  const walk = walkDocument(document);
  const seen = new Set<string>();
  const projects: WorkProject[] = [];
  for (const unit of walk.units) {
    const integrations = unit.raw['integrations'];
    const work = isRecord(integrations) ? integrations['work'] : undefined;
    if (!isRecord(work) || typeof work['project'] !== 'string') continue;
    const key = work['project'];
    if (!PROJECT_KEY.test(key) || seen.has(key)) continue;
    seen.add(key);
    const text = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
    projects.push({
      key,
      name: text(work['name']) ?? unit.name ?? key,
      unit: unit.name,
      lead: unit.lead,
      description: text(work['description']),
      target_date: text(work['target_date']),
      archived: work['archived'] === true,
      members: walk.seats.filter((s) => s.placement === unit && s.handle !== null).map((s) => s.handle!),
    });
  }
  return projects;
}

/** Seat handles of the document with their kind: assignees must be one of them. */
export function seatKindsOf(document: unknown): Map<string, 'agent' | 'human'> {
  const kinds = new Map<string, 'agent' | 'human'>();
  if (!isRecord(document)) return kinds;
  for (const seat of walkDocument(document).seats) if (seat.handle) kinds.set(seat.handle, seat.kind);
  return kinds;
}
