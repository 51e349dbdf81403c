/**
 * The skills a seat reads: the sets of the sources configured now, the seat's own learned skills and those
 * promoted from other seats, read from the bucket on each call (a few small reads per `skill_list`), merged
 * by name (native first, then wiki, tracker-b, learned, promoted), with the company's `skill_variables` put in place of their `{{name}}`
 * placeholders.
 */
import type { Kv } from '../../bus/index.js';
import type { SkillSource } from '../../schema/index.js';
import type { ShelvedSkill, SkillShelf } from '../toolservers/index.js';
import { readLearned } from './skills.learned.js';
import { readPromoted } from './skills.promotion.js';
import { readSkillSet } from './skills.sync.js';
import { withVariables } from './skills.text.js';

export interface SkillPlace {
  readonly source: SkillSource;
  /** How the answer names it: `wiki space TS`. */
  readonly label: string;
}

export function createSkillShelf(opts: {
  readonly kv: Kv;
  /** The sources configured now, in the order a name is taken. */
  places(): readonly SkillPlace[];
  variables(): Readonly<Record<string, string>>;
}): SkillShelf {
  return {
    places: () => opts.places().map((p) => p.label),
    async list(agentId) {
      const sets = await Promise.all(opts.places().map((p) => readSkillSet(opts.kv, p.source)));
      const learned = agentId === null ? [] : (await readLearned(opts.kv, agentId)).skills;
      const promoted = (await readPromoted(opts.kv)).skills;
      const variables = opts.variables();
      const byName = new Map<string, ShelvedSkill>();
      for (const set of sets) {
        for (const skill of set?.skills ?? []) {
          const key = skill.name.toLowerCase();
          if (byName.has(key)) continue;
          byName.set(key, { ...skill, source: set?.source ?? 'native' });
        }
      }
      // The company's pages first: a learned skill of a name they hold is not shown.
      for (const skill of learned) {
        const key = skill.name.toLowerCase();
        if (byName.has(key)) continue;
        byName.set(key, { ...skill, truncated: false, source: 'learned', url: null });
      }
      // Then what other seats learned and proved (skill promotion); a seat's own version comes first.
      for (const skill of promoted) {
        const key = skill.name.toLowerCase();
        if (byName.has(key)) continue;
        byName.set(key, { ...skill, truncated: false, source: `promoted from @${skill.from}`, url: null });
      }
      return [...byName.values()]
        .map(({ name, description, content, truncated, source, url }) => ({
          name,
          description: withVariables(description, variables),
          content: withVariables(content, variables),
          truncated,
          source,
          url,
        }))
        .sort((a, b) => a.name.localeCompare(b.name));
    },
  };
}
