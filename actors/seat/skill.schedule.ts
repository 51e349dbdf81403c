/**
 * Scheduled skill synthesis (`learning.skill_synthesis.scheduler_enabled`): a procedure can show only across
 * several turns — each done in one tool call, too small to synthesise alone. Such episodes wait in the seat's
 * backlog (`backlog.<agent id>` in `svc_tool_skills`, the newest BACKLOG_MAX), and at most once per
 * SCHEDULE_EVERY_MS, once BATCH_MIN of them wait, one model call reads them together and may write one skill.
 * Pure: the backlog, when a pass is due, the request.
 */
import { z } from 'zod';
import type { LearnedSkill } from '../skills/index.js';
import type { LlmRequest } from './providers/index.js';
import { worthSynthesis } from './skill.synthesis.js';
import type { Episode } from './turn.episode.js';
import { clip } from '../text.js';

/** How often a seat's backlog may be read by the model. */
export const SCHEDULE_EVERY_MS = 6 * 3600 * 1000;
/** Episodes a pass needs: fewer show no pattern. */
export const BATCH_MIN = 3;
/** Episodes kept waiting: the newest. */
export const BACKLOG_MAX = 20;
const TEXT_MAX = 600;

export const BacklogEpisode = z.object({
  id: z.string(),
  task: z.string(),
  plan: z.string(),
  tool_sequence: z.array(z.string()),
  account: z.string(),
  ended_at: z.string(),
});
export type BacklogEpisode = z.infer<typeof BacklogEpisode>;

export const Backlog = z.object({
  episodes: z.array(BacklogEpisode),
  /** When the last pass ran (null: never). */
  last_run: z.string().nullable(),
});
export type Backlog = z.infer<typeof Backlog>;

export const emptyBacklog = (): Backlog => ({ episodes: [], last_run: null });

/** Whether an episode waits for the scheduled pass: done, with tools, but not synthesised on its own. */
export function waitsForSchedule(episode: Episode): boolean {
  return (
    (episode.review_outcome === 'passed_first' || episode.review_outcome === 'passed_after_revision') &&
    episode.tool_sequence.length > 0 &&
    !worthSynthesis(episode)
  );
}

/** The backlog with `episode` in it (once per id), the newest BACKLOG_MAX kept. */
export function addToBacklog(backlog: Backlog, episode: Episode): Backlog {
  if (backlog.episodes.some((e) => e.id === episode.id)) return backlog;
  const entry: BacklogEpisode = {
    id: episode.id,
    task: clip(episode.ask, TEXT_MAX),
    plan: clip(episode.plan_summary, TEXT_MAX),
    tool_sequence: [...episode.tool_sequence],
    account: clip(episode.account, TEXT_MAX),
    ended_at: episode.ended_at,
  };
  return { ...backlog, episodes: [...backlog.episodes, entry].slice(-BACKLOG_MAX) };
}

/** Whether a pass is due at `now`: enough episodes wait and the last pass is old enough. */
export function passDue(backlog: Backlog, now: Date): boolean {
  if (backlog.episodes.length < BATCH_MIN) return false;
  if (backlog.last_run === null) return true;
  const last = Date.parse(backlog.last_run);
  return Number.isNaN(last) || now.getTime() - last >= SCHEDULE_EVERY_MS;
}

export function batchRequest(
  episodes: readonly BacklogEpisode[],
  known: readonly LearnedSkill[],
): LlmRequest {
  const names = known.map((s) => `- ${s.name}: ${s.description}`).join('\n') || '(none yet)';
  const tasks = episodes.map(
    (e, i) =>
      `### Task ${i + 1}\nAsked: ${e.task}\nPlan: ${e.plan}\nTools: ${e.tool_sequence.join(', ')}\nOutcome: ${e.account}`,
  );
  return {
    system: [
      'You keep a short library of skills for an agent: procedures it can follow again for a kind of task.',
      'Below are several small tasks it finished. If some of them are the same kind of task done the same way,',
      'write that procedure as one skill; otherwise answer {"skill": null}.',
      'Answer with one JSON object and nothing else:',
      '{"skill": {"name": "<short imperative title>", "description": "<one line: when to use it>",',
      '"content": "<the steps, in Markdown, naming the tools>"}} or {"skill": null}.',
      'Reuse the exact name of a known skill when the procedure is the same one, better written.',
    ].join('\n'),
    messages: [{ role: 'user', content: [`Known skills:\n${names}`, ...tasks].join('\n\n') }],
    max_tokens: 1_500,
    temperature: 0,
  };
}

/** The tool sequence a batch's skill is recorded with: the most common one among its episodes. */
export function commonSequence(episodes: readonly BacklogEpisode[]): string[] {
  const counts = new Map<string, { n: number; tools: string[] }>();
  for (const e of episodes) {
    const key = e.tool_sequence.join('\u0000');
    const entry = counts.get(key) ?? { n: 0, tools: e.tool_sequence };
    counts.set(key, { ...entry, n: entry.n + 1 });
  }
  return [...counts.values()].sort((a, b) => b.n - a.n)[0]?.tools ?? [];
}
