/**
 * `skill_list` and `skill_read`: the company's tool skills (ops/skills.md), the how-to pages its people
 * keep for the tools agents use. A seat lists them (name and first line), reads the one it needs, and
 * the skills it read become its episode's `skills_used`.
 */
import { z } from 'zod';
import { closestName, skillHeading, SKILL_LIST_TOOL, SKILL_READ_TOOL } from '../../../schema/index.js';
import { defineBuiltin, textResult } from './builtin.define.js';
import type { BuiltinTool, ShelvedSkill, SkillShelf } from './builtin.types.js';

const ListArgs = z.strictObject({
  query: z
    .string()
    .trim()
    .max(200)
    .optional()
    .describe('Words to look for in skill names and descriptions; omit to list every skill.'),
});

const ReadArgs = z.strictObject({
  name: z.string().trim().min(1).max(200).describe('The skill’s name as skill_list shows it.'),
});

const readOnly = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

const nothingKept = (shelf: SkillShelf): string => {
  const places = shelf.places();
  return places.length === 0
    ? 'This company keeps no tool skills (no skills space or project is configured).'
    : `No tool skills are kept yet (they are pages of the ${places.join(', ')}).`;
};

const matches = (skill: ShelvedSkill, words: string[]): boolean => {
  const text = `${skill.name} ${skill.description}`.toLowerCase();
  return words.every((w) => text.includes(w));
};

export function skillTools(deps: {
  readonly shelf: SkillShelf;
  /** Whether the seat learns skills of its own or reads those promoted from others (synthesis, promotion). */
  readonly learns?: (seat: string) => boolean;
}): BuiltinTool[] {
  const { shelf } = deps;
  // Offered only where skills are kept: a tool that can only say "none" costs every turn its description.
  const offered = (seat: string): boolean => shelf.places().length > 0 || (deps.learns?.(seat) ?? false);
  const list = defineBuiltin({
    name: SKILL_LIST_TOOL,
    description:
      'List the tool skills your company keeps: how-to pages for the tools you use, each with its name and first line. Read one with skill_read before using a tool it covers.',
    annotations: { title: 'List tool skills', ...readOnly },
    delivers: null,
    offered,
    args: ListArgs,
    async run(ctx, args) {
      const skills = await shelf.list(ctx.agent_id);
      if (skills.length === 0) return textResult(nothingKept(shelf));
      const words = (args.query ?? '').toLowerCase().split(/\s+/).filter(Boolean);
      const found = skills.filter((s) => matches(s, words));
      if (found.length === 0)
        return textResult(`No tool skill matches "${args.query ?? ''}" (${skills.length} kept; omit the query to list them all).`); // prettier-ignore
      const lines = found.map((s) => `- ${s.name}${s.description ? ` — ${s.description}` : ''}`);
      return textResult(`${found.length} tool skill${found.length === 1 ? '' : 's'}:\n${lines.join('\n')}`);
    },
  });
  const read = defineBuiltin({
    name: SKILL_READ_TOOL,
    description: 'Read one tool skill in full by its name (from skill_list).',
    annotations: { title: 'Read a tool skill', ...readOnly },
    delivers: null,
    offered,
    args: ReadArgs,
    async run(ctx, args) {
      const skills = await shelf.list(ctx.agent_id);
      const wanted = args.name.toLowerCase();
      const skill = skills.find((s) => s.name.toLowerCase() === wanted);
      if (!skill) {
        if (skills.length === 0) return textResult(nothingKept(shelf), true);
        const near = closestName(
          args.name,
          skills.map((s) => s.name),
        );
        return textResult(
          `No tool skill is named "${args.name}"${near ? `; did you mean "${near}"?` : ''} (skill_list lists them).`,
          true,
        );
      }
      const from = `(${skill.source}${skill.url ? `: ${skill.url}` : ''})`;
      const cut = skill.truncated ? '\n\n[The page is longer: this is its beginning. Open it at its source for the rest.]' : ''; // prettier-ignore
      return textResult(`${skillHeading(skill.name)}${from}\n\n${skill.content}${cut}`);
    },
  });
  return [list, read];
}
