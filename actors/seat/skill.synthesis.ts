/**
 * Skill synthesis (`learning.skill_synthesis`): after a turn that succeeded in two or more tool calls, one
 * auxiliary model call asks whether the episode shows a procedure worth keeping, and writes it as a skill
 * the seat can read again (`skill_list`, `skill_read`: source `learned`). With `learning.skill_refinement`
 * a later episode may rewrite a skill of the same name (its version goes up); without it the first stands.
 * Pure: the request, the answer's reading and the next set of learned skills.
 */
import { z } from 'zod';
import { SKILL_CONTENT_MAX, SKILL_DESCRIPTION_MAX, SKILL_NAME_MAX, uuidv5 } from '../../schema/index.js';
import { fitBytes, type LearnedSkill } from '../skills/index.js';
import type { LlmRequest } from './providers/index.js';
import { jsonAnswer } from './json-answer.js';
import type { Episode } from './turn.episode.js';
import { clip } from '../text.js';

/** Learned skills kept per seat: the most recently updated. */
export const LEARNED_PER_SEAT = 50;

/** An episode a procedure may be learned from: reviewed as done, in two or more tool calls. */
export function worthSynthesis(episode: Episode): boolean {
  return (
    (episode.review_outcome === 'passed_first' || episode.review_outcome === 'passed_after_revision') &&
    episode.tool_sequence.length >= 2
  );
}

export function synthesisRequest(episode: Episode, known: readonly LearnedSkill[]): LlmRequest {
  const names = known.map((s) => `- ${s.name}: ${s.description}`).join('\n') || '(none yet)';
  return {
    system: [
      'You keep a short library of skills for an agent: procedures it can follow again for a kind of task.',
      'Read the finished task below. If it shows a reusable procedure (steps and tools that would work for',
      'similar tasks, not facts about this one case), write it as a skill; otherwise answer {"skill": null}.',
      'Answer with one JSON object and nothing else:',
      '{"skill": {"name": "<short imperative title>", "description": "<one line: when to use it>",',
      '"content": "<the steps, in Markdown, naming the tools>"}} or {"skill": null}.',
      'Reuse the exact name of a known skill when the procedure is the same one, better written.',
    ].join('\n'),
    messages: [
      {
        role: 'user',
        content: [
          `Known skills:\n${names}`,
          `Task: ${clip(episode.ask, 2_000)}`,
          `Plan: ${clip(episode.plan_summary, 1_000)}`,
          `Tools called, in order: ${episode.tool_sequence.join(', ')}`,
          `Outcome (${episode.review_outcome ?? 'unreviewed'}): ${clip(episode.account, 2_000)}`,
        ].join('\n\n'),
      },
    ],
    max_tokens: 1_500,
    temperature: 0,
  };
}

const Answer = z.object({
  skill: z
    .object({
      name: z.string().trim().min(1).max(SKILL_NAME_MAX),
      description: z.string().trim().max(SKILL_DESCRIPTION_MAX),
      content: z.string().trim().min(1).max(SKILL_CONTENT_MAX),
    })
    .nullable(),
});
export type Synthesised = NonNullable<z.infer<typeof Answer>['skill']>;

/** The skill the model wrote, null when it wrote none; `undefined` when the answer is not the JSON asked for. */
export function readSynthesis(text: string): Synthesised | null | undefined {
  return jsonAnswer(text, Answer)?.skill;
}

/** Namespace of learned skill ids: uuidv5(namespace, agent id + name), one id per seat and name. */
const SKILL_NAMESPACE = '0b7f5c1e-6a2d-4f3b-9c8e-1d2a3b4c5d6e';

/**
 * The seat's learned skills with `written` in them, and the skill as recorded (null when a skill of that name
 * stands and refinement is off, or nothing changed).
 */
export function learn(
  known: readonly LearnedSkill[],
  written: Synthesised,
  opts: {
    readonly agentId: string;
    readonly toolSequence: readonly string[];
    readonly refine: boolean;
    readonly now: Date;
  },
): { skills: LearnedSkill[]; recorded: LearnedSkill | null } {
  const at = opts.now.toISOString();
  const prior = known.find((s) => s.name.toLowerCase() === written.name.toLowerCase());
  if (
    prior &&
    (!opts.refine || (prior.content === written.content && prior.description === written.description))
  )
    return { skills: [...known], recorded: null };
  const recorded: LearnedSkill = {
    id: prior?.id ?? uuidv5(SKILL_NAMESPACE, `${opts.agentId}\u0000${written.name.toLowerCase()}`),
    name: prior?.name ?? written.name,
    description: written.description,
    content: written.content,
    tool_sequence: [...opts.toolSequence],
    version: (prior?.version ?? 0) + 1,
    created_at: prior?.created_at ?? at,
    updated_at: at,
  };
  const skills = fitBytes(
    [recorded, ...known.filter((s) => s !== prior)]
      .sort((a, b) => b.updated_at.localeCompare(a.updated_at))
      .slice(0, LEARNED_PER_SEAT),
  );
  return { skills, recorded };
}
