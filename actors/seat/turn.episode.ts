/**
 * The episode of a turn (spec "Memory view", event `episode_recorded`): the host notes each phase's
 * outcome and tool calls in a draft, and turns it into the episode once the turn completed. Pure.
 *
 * A turn whose plan never answered (the provider, the budget or a stop ended it first) or that decided
 * `skip` (nothing was asked) records none: nothing was attempted. Every other completed turn records
 * one, failed ones included with `review_outcome: failed`: a failed attempt and why it failed is what
 * later reflection learns most from.
 */
import { uuidv5, type Payloads } from '../../schema/index.js';
import type { PhaseOutcome, PlanDecision, TurnCompletedPayload, Wake } from './seat.types.js';
import { clip } from '../text.js';

export type Episode = (typeof Payloads.EpisodeRecorded)['_output'];

export interface EpisodeDraft {
  readonly wake: Wake;
  readonly decision: PlanDecision | null;
  /** The latest plan (a re-plan replaces it). */
  readonly plan: string | null;
  /** The latest execute account. */
  readonly account: string | null;
  readonly tools: readonly string[];
  /** Tool skills read, first read first, each once. */
  readonly skills: readonly string[];
  readonly verdicts: ReadonlyArray<'done' | 'self_iterate'>;
}

export const ReviewOutcome = {
  PassedFirst: 'passed_first',
  PassedAfterRevision: 'passed_after_revision',
  Failed: 'failed',
} as const;

export const draftOf = (wake: Wake): EpisodeDraft => ({
  wake,
  decision: null,
  plan: null,
  account: null,
  tools: [],
  skills: [],
  verdicts: [],
});

/** The draft after a phase completed with `outcome`, having called `tools` and read `skills` in order. */
export function noteOutcome(
  draft: EpisodeDraft,
  outcome: PhaseOutcome,
  tools: readonly string[],
  skills: readonly string[] = [],
): EpisodeDraft {
  const next = {
    ...draft,
    tools: [...draft.tools, ...tools],
    skills: [...new Set([...draft.skills, ...skills])],
  };
  if (outcome.phase === 'plan') return { ...next, decision: outcome.decision, plan: outcome.plan };
  if (outcome.phase === 'execute') return { ...next, account: outcome.response };
  return { ...next, verdicts: [...draft.verdicts, outcome.verdict] };
}

/** The episode id: one per turn, so a turn completed twice (a redelivered wake) records it once. */
export const episodeId = (turnId: string): string => uuidv5(turnId, 'episode');

export function episodeOf(draft: EpisodeDraft, turn: TurnCompletedPayload): Episode | null {
  if (draft.plan === null || draft.decision === 'skip') return null;
  const { wake } = draft;
  const payload =
    Object.keys(wake.payload).length > 0 ? `\n\n${clip(JSON.stringify(wake.payload), 4_000)}` : '';
  const firstLine = wake.summary.split('\n').find((line) => line.trim() !== '') ?? '';
  const last = draft.verdicts.at(-1);
  const review_outcome = turn.failed
    ? ReviewOutcome.Failed
    : last === 'done'
      ? draft.verdicts.length === 1
        ? ReviewOutcome.PassedFirst
        : ReviewOutcome.PassedAfterRevision
      : null;
  const failure = turn.failed ? `The turn failed: ${turn.error ?? 'failed'}` : '';
  return {
    id: episodeId(turn.turn_id),
    task_summary: clip(firstLine.trim() || wake.kind, 200),
    plan_summary: clip(draft.plan, 500),
    tool_sequence: [...draft.tools],
    skills_used: [...draft.skills],
    review_outcome,
    started_at: turn.started_at,
    ended_at: turn.ended_at,
    duration_ms: turn.duration_ms,
    task_id: turn.work_item ?? null,
    turn_id: turn.turn_id,
    ask: `${wake.summary}${payload}`,
    account: [draft.account ?? '', failure].filter(Boolean).join('\n\n'),
  };
}
