/** An episode for tests of what follows a turn (synthesis, reflection, promotion): a done two-step deploy. */
import type { Episode } from '../../../actors/seat/turn.episode.js';

export const anEpisode = (over: Partial<Episode> = {}): Episode => ({
  id: 'e1',
  task_summary: 'Deploy',
  plan_summary: 'build, then ship',
  tool_sequence: ['files_build', 'files_ship'],
  skills_used: [],
  review_outcome: 'passed_first',
  started_at: '2026-12-01T00:00:00Z',
  ended_at: '2026-12-01T00:01:00Z',
  duration_ms: 60_000,
  task_id: null,
  turn_id: 't1',
  ask: 'Deploy the site',
  account: 'Built and shipped.',
  ...over,
});
