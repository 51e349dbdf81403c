/**
 * Skill promotion (`learning.skill_promotion`): a seat's learned skill that served it well — read in
 * PROMOTE_AFTER_USES turns reviewed as done — is promoted to every seat: copied to the `promoted` key of
 * `svc_tool_skills`, where each seat's `skill_list` finds it (source `promoted`). A refined skill's newer
 * version replaces its promoted copy once it has been used as often. Counts are kept per seat under
 * `uses.<agent id>` (skill id -> successful uses), written by the seat's holder only.
 */
import { z } from 'zod';
import type { Kv } from '../../bus/index.js';
import { Payloads } from '../../schema/index.js';
import { readKvJson } from '../kv-json.js';
import type { LearnedSkill } from './skills.learned.js';
import { fitBytes } from './skills.text.js';

/** Successful turns that must have read a learned skill before it is promoted. */
export const PROMOTE_AFTER_USES = 2;
/** Promoted skills kept, the most recently promoted: like a seat's learned set, well under a value's 1 MiB. */
export const PROMOTED_MAX = 50;

export const PromotedSkill = Payloads.SkillSynthesized.extend({
  /** The handle of the seat that learned it. */
  from: z.string(),
  promoted_at: z.string(),
});
export type PromotedSkill = z.infer<typeof PromotedSkill>;

const PromotedSet = z.object({ skills: z.array(PromotedSkill) });
/** Per learned skill id: its successful uses, and the version promoted last (0: none). */
const Uses = z.record(
  z.string(),
  z.object({ uses: z.number().int().min(0), promoted: z.number().int().min(0) }),
);
export type Uses = z.infer<typeof Uses>;

export const PROMOTED_KEY = 'promoted';
export const usesKey = (agentId: string): string => `uses.${agentId}`;

export async function readPromoted(kv: Kv): Promise<{ skills: PromotedSkill[]; revision: number | null }> {
  const { value, revision } = await readKvJson(kv, PROMOTED_KEY, PromotedSet, { skills: [] });
  return { skills: value.skills, revision };
}

export async function readUses(kv: Kv, agentId: string): Promise<{ uses: Uses; revision: number | null }> {
  const { value, revision } = await readKvJson(kv, usesKey(agentId), Uses, {});
  return { uses: value, revision };
}

/**
 * The counts after a turn reviewed as done that read `read` (skill names, any case), and the learned skills
 * now due for promotion: used often enough, in a version not promoted yet. Skills no longer learned drop out.
 */
export function countUses(
  uses: Uses,
  learned: readonly LearnedSkill[],
  read: readonly string[],
): { uses: Uses; due: LearnedSkill[]; changed: boolean } {
  const names = new Set(read.map((n) => n.toLowerCase()));
  const next: Uses = {};
  const due: LearnedSkill[] = [];
  let changed = Object.keys(uses).some((id) => !learned.some((s) => s.id === id));
  for (const skill of learned) {
    const prior = uses[skill.id] ?? { uses: 0, promoted: 0 };
    if (!names.has(skill.name.toLowerCase())) {
      if (uses[skill.id]) next[skill.id] = prior;
      continue;
    }
    changed = true;
    const counted = { uses: prior.uses + 1, promoted: prior.promoted };
    if (counted.uses >= PROMOTE_AFTER_USES && counted.promoted < skill.version) {
      due.push(skill);
      counted.promoted = skill.version;
    }
    next[skill.id] = counted;
  }
  return { uses: next, due, changed };
}

/** The promoted set with `skills` (from the seat `from`) in it: one per id and per name, newest first, bounded. */
export function promote(
  promoted: readonly PromotedSkill[],
  skills: readonly LearnedSkill[],
  from: string,
  now: Date,
): PromotedSkill[] {
  const at = now.toISOString();
  const added = skills.map((s) => ({ ...s, from, promoted_at: at }));
  const taken = new Set(added.flatMap((s) => [s.id, s.name.toLowerCase()]));
  const kept = promoted.filter((s) => !taken.has(s.id) && !taken.has(s.name.toLowerCase()));
  return fitBytes([...added, ...kept].slice(0, PROMOTED_MAX));
}
