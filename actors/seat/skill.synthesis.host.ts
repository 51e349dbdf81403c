/**
 * Runs skill synthesis for one recorded episode (skill.synthesis.ts): the budget checked, one model call on
 * the seat's own provider chain, its spend recorded as the `skill_synthesizer` worker's, and a skill written
 * kept in the seat's learned set (`learned.<agent id>` in `svc_tool_skills`, read by its `skill_list`) and
 * recorded as `skill_synthesized` (the memory view's `synthesized_skills`). Never throws: a failure costs the
 * skill, not the turn. Each episode asks once per id: a repeat of its spend or event is stored once.
 */
import type { Logger } from 'pino';
import type { Kv } from '../../bus/index.js';
import { uuidv5 } from '../../schema/index.js';
import { writeKvJson } from '../kv-json.js';
import { learnedKey, readLearned, type LearnedSkill } from '../skills/index.js';
import { auxiliaryCall, type LearningDeps } from './learning.call.js';
import type { SeatProfile } from './seat.profile.js';
import { learn, readSynthesis, synthesisRequest } from './skill.synthesis.js';
import type { Episode } from './turn.episode.js';

export interface SynthesisDeps extends LearningDeps {
  /** The `svc_tool_skills` bucket. */
  readonly skills: Kv;
}

export interface SynthesisInput {
  readonly seat: SeatProfile;
  readonly episode: Episode;
  readonly caps: { readonly org: number; readonly seat: number };
  readonly trace_id: string;
  /** `learning.skill_refinement`: a skill of the same name may be rewritten. */
  readonly refine: boolean;
}

export async function synthesizeSkill(deps: SynthesisDeps, input: SynthesisInput): Promise<void> {
  const { seat, episode } = input;
  const log = deps.logger.child({ worker: 'skill_synthesizer', turn_id: episode.turn_id });
  try {
    const known = await readLearned(deps.skills, seat.agent_id);
    const answer = await auxiliaryCall(
      deps,
      {
        worker: 'skill_synthesizer',
        seat,
        request: synthesisRequest(episode, known.skills),
        trace_id: input.trace_id,
        spendId: uuidv5(episode.id, 'skill-synthesis-spend'),
        turn_id: episode.turn_id,
        caps: input.caps,
      },
      log,
    );
    if (answer === null) return;
    await keepSkill(deps, known, answer, { agentId: seat.agent_id, toolSequence: episode.tool_sequence, refine: input.refine, trace_id: input.trace_id }, log); // prettier-ignore
  } catch (err) {
    log.warn({ err, event: 'skill_synthesis_failed' }, 'skill_synthesis_failed');
  }
}

/**
 * Reads a synthesis answer and keeps the skill it wrote: in the seat's learned set (compare-and-set against
 * the set `known` was read from) and as `skill_synthesized`. Shared with the scheduled pass.
 */
export async function keepSkill(
  deps: SynthesisDeps,
  known: { readonly skills: LearnedSkill[]; readonly revision: number | null },
  answer: string,
  opts: { readonly agentId: string; readonly toolSequence: readonly string[]; readonly refine: boolean; readonly trace_id: string }, // prettier-ignore
  log: Logger,
): Promise<void> {
  const written = readSynthesis(answer);
  if (written === undefined) {
    log.warn(
      { event: 'skill_synthesis_unreadable' },
      'the model did not answer with the skill JSON asked for',
    );
    return;
  }
  if (written === null) return;
  const { skills, recorded } = learn(known.skills, written, { ...opts, now: deps.now() });
  if (recorded === null) return;
  // Only the seat's holder writes here; the compare-and-set still keeps a stale holder from undoing a write.
  await writeKvJson(deps.skills, learnedKey(opts.agentId), { skills }, known.revision);
  await deps.publish('skill_synthesized', { ...recorded }, `skill-${recorded.id}-v${recorded.version}`, opts.trace_id); // prettier-ignore
  log.info(
    { event: 'skill_synthesized', skill: recorded.name, version: recorded.version },
    'skill_synthesized',
  );
}
