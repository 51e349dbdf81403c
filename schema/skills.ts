/**
 * Tool skills: the team's own how-to pages for the tools its agents use, kept in one wiki space
 * (`SVC_TOOL_SKILLS_SPACE`, default `TS`), one tracker-b project (`SVC_TOOL_SKILLS_PROJECT`, default `TS`)
 * or the native knowledge base's container of the space's name, and synced into the `svc_tool_skills`
 * bucket: one key per source holding that source's whole set (ops/skills.md).
 */
import { z } from 'zod';

export const SkillSource = { Native: 'native', Wiki: 'wiki', TrackerB: 'tracker-b' } as const;
export type SkillSource = (typeof SkillSource)[keyof typeof SkillSource];

/** Bounds that keep one source's set well under a bucket value's 1 MiB. */
export const SKILLS_PER_SOURCE = 100;
export const SKILL_CONTENT_MAX = 8 * 1024;
export const SKILL_NAME_MAX = 120;
/**
 * Encoded bytes of one source's skills at most: a JetStream message is 1 MiB by default, and 100 skills of
 * 8 Ki characters could be three times that in UTF-8. The newest skills that fit are kept.
 */
export const SKILL_SET_BYTES_MAX = 768 * 1024;
export const SKILL_DESCRIPTION_MAX = 200;

/** The builtin that reads one skill: the turn engine lists what it answered as the episode's `skills_used`. */
export const SKILL_READ_TOOL = 'skill_read';
export const SKILL_LIST_TOOL = 'skill_list';

/** A `skill_read` answer opens with the skill's name as a heading: how the episode learns the exact name. */
export const skillHeading = (name: string): string => `# ${name}\n`;

/** The skill a `skill_read` answer is about, or null for a refusal. */
export function skillOfAnswer(text: string): string | null {
  if (!text.startsWith('# ')) return null;
  const end = text.indexOf('\n');
  const name = (end === -1 ? text.slice(2) : text.slice(2, end)).trim();
  return name === '' ? null : name;
}

export const ToolSkill = z.object({
  name: z.string().min(1).max(SKILL_NAME_MAX),
  /** The content's first line of prose: what the seat sees in its list. */
  description: z.string().max(SKILL_DESCRIPTION_MAX),
  /** Plain text or Markdown, `{{variable}}` placeholders unreplaced (the reader substitutes). */
  content: z.string().max(SKILL_CONTENT_MAX),
  /** Cut to SKILL_CONTENT_MAX when synced. */
  truncated: z.boolean(),
  /** The page's or item's id at its source. */
  source_id: z.string(),
  url: z.string().nullable(),
  updated_at: z.string().nullable(),
});
export type ToolSkill = z.infer<typeof ToolSkill>;

/** One source's set as last synced (the bucket's value under the source's key). */
export const SkillSet = z.object({
  source: z.enum([SkillSource.Native, SkillSource.Wiki, SkillSource.TrackerB]),
  /** The space or project key read. */
  key: z.string(),
  synced_at: z.string(),
  skills: z.array(ToolSkill).max(SKILLS_PER_SOURCE),
  /** Pages or items beyond SKILLS_PER_SOURCE that were left out (the newest are kept). */
  left_out: z.number().int().nonnegative(),
});
export type SkillSet = z.infer<typeof SkillSet>;
