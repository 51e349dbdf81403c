/**
 * Skill promotion after a seat's episode (actors/skills/skills.promotion.ts): a turn reviewed as done counts
 * one use of each of the seat's learned skills it read; a skill used often enough is copied to the promoted
 * set every seat lists, and recorded as `skill_promoted`. No model call. Never throws: a failure costs the
 * count or the promotion, not the turn. The promoted set is written before the counts, so a stop in between
 * counts the use again later and promotes the same version once more (the same copy, the same event id).
 */
import type { Logger } from 'pino';
import { KvConflictError, type Kv } from '../../bus/index.js';
import {
  countUses,
  promote,
  PROMOTED_KEY,
  readLearned,
  readPromoted,
  readUses,
  usesKey,
  type LearnedSkill,
} from '../skills/index.js';
import { writeKvJson } from '../kv-json.js';
import type { SeatProfile } from './seat.profile.js';
import type { Episode } from './turn.episode.js';

export interface PromotionDeps {
  /** The `svc_tool_skills` bucket. */
  readonly skills: Kv;
  readonly logger: Logger;
  readonly now: () => Date;
  /** An event about the seat (fenced by its lease), stored under the record's id. */
  publish(type: string, payload: Record<string, unknown>, id: string, trace: string): Promise<void>;
}

/** Seats on other nodes promote too: a lost compare-and-set reads the set again, this many times. */
const PROMOTE_ATTEMPTS = 5;
const passed = new Set(['passed_first', 'passed_after_revision']);

async function addPromoted(deps: PromotionDeps, due: readonly LearnedSkill[], from: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const current = await readPromoted(deps.skills);
    try {
      const skills = promote(current.skills, due, from, deps.now());
      await writeKvJson(deps.skills, PROMOTED_KEY, { skills }, current.revision);
      return;
    } catch (error) {
      if (!(error instanceof KvConflictError) || attempt >= PROMOTE_ATTEMPTS) throw error;
    }
  }
}

export async function countSkillUses(
  deps: PromotionDeps,
  input: { readonly seat: SeatProfile; readonly episode: Episode; readonly trace_id: string },
): Promise<void> {
  const { seat, episode } = input;
  if (!passed.has(episode.review_outcome ?? '') || episode.skills_used.length === 0) return;
  const log = deps.logger.child({ turn_id: episode.turn_id });
  try {
    const learned = await readLearned(deps.skills, seat.agent_id);
    const counts = await readUses(deps.skills, seat.agent_id);
    const { uses, due, changed } = countUses(counts.uses, learned.skills, episode.skills_used);
    if (!changed) return;
    if (due.length > 0) await addPromoted(deps, due, seat.handle);
    await writeKvJson(deps.skills, usesKey(seat.agent_id), uses, counts.revision);
    for (const skill of due) {
      const payload = { id: skill.id, name: skill.name, version: skill.version, from: seat.handle, uses: uses[skill.id]?.uses ?? 0 }; // prettier-ignore
      await deps.publish(
        'skill_promoted',
        payload,
        `skill-promoted-${skill.id}-v${skill.version}`,
        input.trace_id,
      );
      log.info({ event: 'skill_promoted', skill: skill.name, version: skill.version }, 'skill_promoted');
    }
  } catch (err) {
    log.warn({ err, event: 'skill_promotion_failed' }, 'skill_promotion_failed');
  }
}
