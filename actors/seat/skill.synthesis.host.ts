/**
 * Runs skill synthesis for one recorded episode (skill.synthesis.ts): the budget checked, one model call on
 * the seat's own provider chain, its spend recorded as the `skill_synthesizer` worker's, and a skill written
 * kept in the seat's learned set (`learned.<agent id>` in `svc_tool_skills`, read by its `skill_list`) and
 * recorded as `skill_synthesized` (the memory view's `synthesized_skills`). Never throws: a failure costs the
 * skill, not the turn. Each episode asks once per id: a repeat of its spend or event is stored once.
 */
import type { Logger } from 'pino';
import type { Bus, Kv } from '../../bus/index.js';
import { uuidv5 } from '../../schema/index.js';
import { learnedKey, readLearned } from '../skills/index.js';
import type { Budget } from './budget.js';
import type { SeatProfile } from './seat.profile.js';
import { learn, readSynthesis, synthesisRequest } from './skill.synthesis.js';
import { recordAuxiliarySpend } from './spend.js';
import type { TurnDeps } from './turn.deps.js';
import type { Episode } from './turn.episode.js';

export interface SynthesisDeps {
  readonly bus: Bus;
  /** The `svc_tool_skills` bucket. */
  readonly skills: Kv;
  readonly node: string;
  readonly llm: TurnDeps['llm'];
  readonly budget: Budget;
  readonly logger: Logger;
  readonly now: () => Date;
  /** An event about the seat (fenced by its lease), stored under the record's id. */
  publish(type: string, payload: Record<string, unknown>, id: string, trace: string): Promise<void>;
}

export interface SynthesisInput {
  readonly seat: SeatProfile;
  readonly episode: Episode;
  readonly caps: { readonly org: number; readonly seat: number };
  readonly trace_id: string;
  /** `learning.skill_refinement`: a skill of the same name may be rewritten. */
  readonly refine: boolean;
}

const encoder = new TextEncoder();

export async function synthesizeSkill(deps: SynthesisDeps, input: SynthesisInput): Promise<void> {
  const { seat, episode } = input;
  const log = deps.logger.child({ worker: 'skill_synthesizer', turn_id: episode.turn_id });
  try {
    const refused = await deps.budget.check(seat.handle, input.caps);
    if (refused) {
      log.info(
        { event: 'skill_synthesis_skipped', reason: `${refused.scope}_budget` },
        'skill_synthesis_skipped',
      );
      return;
    }
    const known = await readLearned(deps.skills, seat.agent_id);
    const chain = deps.llm.resolve(seat.llm ? { llm: seat.llm } : seat.handle);
    const trace = { trace_id: input.trace_id, parent_span_id: null };
    const result = await deps.llm.call(chain, synthesisRequest(episode, known.skills), { seat: seat.handle, trace }).result(); // prettier-ignore
    await recordAuxiliarySpend(
      { bus: deps.bus, node: deps.node, budget: deps.budget },
      {
        worker: 'skill_synthesizer',
        provider: result.provider,
        model: result.model,
        ...result.usage,
        seat: { handle: seat.handle, agent_id: seat.agent_id, role: seat.name },
        turn_id: episode.turn_id,
        trace,
        id: uuidv5(episode.id, 'skill-synthesis-spend'),
        at: deps.now(),
      },
    );
    const written = readSynthesis(result.text);
    if (written === undefined) {
      log.warn(
        { event: 'skill_synthesis_unreadable' },
        'the model did not answer with the skill JSON asked for',
      );
      return;
    }
    if (written === null) return;
    const { skills, recorded } = learn(known.skills, written, {
      agentId: seat.agent_id,
      toolSequence: episode.tool_sequence,
      refine: input.refine,
      now: deps.now(),
    });
    if (recorded === null) return;
    const value = encoder.encode(JSON.stringify({ skills }));
    // Only the seat's holder writes here; the compare-and-set still keeps a stale holder from undoing a write.
    if (known.revision === null) await deps.skills.create(learnedKey(seat.agent_id), value);
    else await deps.skills.update(learnedKey(seat.agent_id), value, known.revision);
    await deps.publish('skill_synthesized', { ...recorded }, `skill-${recorded.id}-v${recorded.version}`, input.trace_id); // prettier-ignore
    log.info(
      { event: 'skill_synthesized', skill: recorded.name, version: recorded.version },
      'skill_synthesized',
    );
  } catch (err) {
    log.warn({ err, event: 'skill_synthesis_failed' }, 'skill_synthesis_failed');
  }
}
