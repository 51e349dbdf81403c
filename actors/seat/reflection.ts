/**
 * Reflection (`learning.reflect`): after a recorded episode, one auxiliary model call looks back on the turn
 * and writes the lesson worth remembering for similar tasks (a long personal memory row the seat recalls with
 * `memory_recall`); with `summarize_episodes` it also rewrites the episode's task and plan summaries, which
 * were cut from the wake and the plan. Pure: the request, the answer's reading, the row and the episode.
 */
import { z } from 'zod';
import type { MemoryRow } from '../toolservers/index.js';
import type { LlmRequest } from './providers/index.js';
import { jsonAnswer } from './json-answer.js';
import type { Episode } from './turn.episode.js';
import { clip } from '../text.js';

/** A lesson's length: a note to read before a task, not an essay. */
export const LESSON_MAX = 1_000;
const TASK_SUMMARY_MAX = 200;
const PLAN_SUMMARY_MAX = 500;

export function reflectionRequest(episode: Episode, summarize: boolean): LlmRequest {
  const shape = summarize
    ? '{"lesson": "<one or two sentences>" | null, "task_summary": "<one line: what was asked>", "plan_summary": "<two or three lines: how it was approached and how it ended>"}'
    : '{"lesson": "<one or two sentences>" | null}';
  return {
    system: [
      'You help an agent learn from the task it just finished. Read what was asked, the plan, the tools it',
      'called and how it ended. If there is a lesson worth remembering for similar tasks next time (what',
      'worked, what to avoid, what to check first), write it as one or two sentences the agent can act on;',
      'answer null for the lesson when the task teaches nothing new. Never include secrets or credentials.',
      ...(summarize ? ['Also summarise the task and the plan for the agent’s record of its episodes.'] : []),
      'Answer with one JSON object and nothing else:',
      shape,
    ].join('\n'),
    messages: [
      {
        role: 'user',
        content: [
          `Task: ${clip(episode.ask, 2_000)}`,
          `Plan: ${clip(episode.plan_summary, 1_000)}`,
          `Tools called, in order: ${episode.tool_sequence.join(', ') || '(none)'}`,
          `Outcome (${episode.review_outcome ?? 'unreviewed'}): ${clip(episode.account, 2_000)}`,
        ].join('\n\n'),
      },
    ],
    max_tokens: 600,
    temperature: 0,
  };
}

const trimmed = z
  .string()
  .transform((s) => s.trim())
  .nullable()
  .optional();
const Answer = z.object({ lesson: trimmed, task_summary: trimmed, plan_summary: trimmed });

export interface Reflection {
  /** Null when the model found nothing worth remembering. */
  readonly lesson: string | null;
  /** Present only when asked for and written. */
  readonly task_summary?: string;
  readonly plan_summary?: string;
}

/** The model's reflection, bounded; `undefined` when the answer is not the JSON asked for. */
export function readReflection(answer: string, summarize: boolean): Reflection | undefined {
  const parsed = jsonAnswer(answer, Answer);
  if (parsed === undefined) return undefined;
  const { lesson, task_summary, plan_summary } = parsed;
  return {
    lesson: lesson ? clip(lesson, LESSON_MAX) : null,
    ...(summarize && task_summary ? { task_summary: clip(task_summary, TASK_SUMMARY_MAX) } : {}),
    ...(summarize && plan_summary ? { plan_summary: clip(plan_summary, PLAN_SUMMARY_MAX) } : {}),
  };
}

/** The memory row id of an episode's lesson: one per episode, so a repeat rewrites the same row. */
export const lessonId = (episodeId: string): string => `reflection-${episodeId}`;

/** The lesson as a long personal memory row, tagged with where it came from. */
export function lessonRow(episode: Episode, lesson: string, now: Date): MemoryRow {
  return {
    id: lessonId(episode.id),
    kind: 'long',
    content: lesson,
    metadata: {
      source: 'reflection',
      episode_id: episode.id,
      task: episode.task_summary,
      outcome: episode.review_outcome,
    },
    ttl_until: null,
    created_at: now.toISOString(),
  };
}

/** The episode with the summaries the reflection wrote; null when it wrote none that differ. */
export function summarizedEpisode(episode: Episode, reflection: Reflection): Episode | null {
  const next = {
    ...episode,
    task_summary: reflection.task_summary ?? episode.task_summary,
    plan_summary: reflection.plan_summary ?? episode.plan_summary,
  };
  return next.task_summary === episode.task_summary && next.plan_summary === episode.plan_summary
    ? null
    : next;
}
