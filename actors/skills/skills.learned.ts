/**
 * A seat's learned skills (skill synthesis, actors/seat/skill.synthesis.ts): kept under `learned.<agent id>`
 * in `svc_tool_skills`, the newest first, read back by the seat's own `skill_list` and `skill_read`.
 */
import { z } from 'zod';
import type { Kv } from '../../bus/index.js';
import { Payloads } from '../../schema/index.js';
import { readKvJson } from '../kv-json.js';

export type LearnedSkill = z.infer<typeof Payloads.SkillSynthesized>;

const LearnedSet = z.object({ skills: z.array(Payloads.SkillSynthesized) });

export const learnedKey = (agentId: string): string => `learned.${agentId}`;

/** The seat's learned skills and the entry's revision (null when it has none), for a compare-and-set write. */
export async function readLearned(
  kv: Kv,
  agentId: string,
): Promise<{ skills: LearnedSkill[]; revision: number | null }> {
  const { value, revision } = await readKvJson(kv, learnedKey(agentId), LearnedSet, { skills: [] });
  return { skills: value.skills, revision };
}
