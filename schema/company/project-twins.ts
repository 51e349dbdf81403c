/**
 * Two units declaring one native work project key (`integrations.work.project`): the first in document
 * order owns the project (schema/work/projects.ts) and each later declaration is ignored. A warning of
 * kind `duplicate_project` at the later declaration names both units and the key, so the ignored one is
 * never silent. Not a refusal: a chart moving a project from one unit to another passes through a state
 * where both name it, and the stored revisions that already do must still reload.
 */
import { cutForQuote, PROJECT_KEY } from '../text-grammars.js';
import { pathOf, type Segment } from './problems.js';
import { isRecord, type Walk } from './walk.js';

export interface ProjectTwin {
  readonly segments: Segment[];
  /** The later unit, whose declaration is ignored. */
  readonly from: string;
  /** The project key, as written. */
  readonly to: string;
  readonly message: string;
}

/** Each declaration of a project key after the first, in document order. */
export function projectTwins(walk: Walk): ProjectTwin[] {
  const owners = new Map<string, string>();
  const twins: ProjectTwin[] = [];
  for (const unit of walk.units) {
    const integrations = unit.raw['integrations'];
    const work = isRecord(integrations) ? integrations['work'] : undefined;
    const key = isRecord(work) ? work['project'] : undefined;
    // A key outside the grammar is already refused, and a message quotes only what fits the grammar.
    if (typeof key !== 'string' || !PROJECT_KEY.test(key)) continue;
    const name = unit.name === null ? `the unit at ${pathOf(unit.segments)}` : cutForQuote(unit.name);
    const owner = owners.get(key);
    if (owner === undefined) {
      owners.set(key, name);
      continue;
    }
    twins.push({
      segments: [...unit.segments, 'integrations', 'work', 'project'],
      from: name,
      to: key,
      message:
        `units \`${owner}\` and \`${name}\` both declare project \`${key}\`; \`${owner}\` (first in ` +
        'the document) owns it and this declaration is ignored: give one of them another key',
    });
  }
  return twins;
}
