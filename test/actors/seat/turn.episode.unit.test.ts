import t from 'tap';
import { draftOf, episodeId, episodeOf, noteOutcome, type Wake } from '../../../actors/index.js';
import { Payloads } from '../../../schema/index.js';

const wake: Wake = {
  id: 'w1',
  kind: 'mention',
  source: 'chat',
  summary: '\nPlease ship the release notes\nfor 1.2',
  trace_id: 't1',
  payload: { channel: 'eng' },
};
const turnId = '2b7e1516-28ae-5d2a-a6ab-f7158809cf4f';
const completed = (over: Record<string, unknown> = {}) =>
  Payloads.AgentTurnCompleted.parse({
    turn_id: turnId,
    started_at: '2026-05-01T12:00:00.000Z',
    ended_at: '2026-05-01T12:00:05.000Z',
    duration_ms: 5000,
    phases: ['plan', 'execute', 'review'],
    total_tokens: 10,
    failed: false,
    ...over,
  });

const planned = noteOutcome(draftOf(wake), { phase: 'plan', decision: 'plan', plan: 'Steps: write' }, []);
const executed = noteOutcome(planned, { phase: 'execute', response: 'Wrote them.', delivered: false }, [
  'files_write',
  'memory_remember',
]);

t.test('a reviewed turn gives an episode with the ask, plan, tools, verdict and account', async (t) => {
  const done = noteOutcome(executed, { phase: 'review', verdict: 'done', notes: 'ok' }, []);
  const episode = episodeOf(done, completed());
  t.ok(Payloads.EpisodeRecorded.safeParse(episode).success, 'fits the event schema');
  t.match(episode, {
    id: episodeId(turnId),
    task_summary: 'Please ship the release notes',
    plan_summary: 'Steps: write',
    tool_sequence: ['files_write', 'memory_remember'],
    skills_used: [],
    review_outcome: 'passed_first',
    duration_ms: 5000,
    turn_id: turnId,
    task_id: null,
    account: 'Wrote them.',
  });
  t.match(episode?.ask, /Please ship the release notes\nfor 1.2/);
  t.match(episode?.ask, /"channel":"eng"/);
  t.equal(episodeId(turnId), episodeId(turnId), 'one id per turn');
});

t.test('a turn accepted after a revision, and one delivered without review, say so', async (t) => {
  const again = noteOutcome(
    noteOutcome(executed, { phase: 'review', verdict: 'self_iterate', notes: 'more' }, []),
    { phase: 'review', verdict: 'done', notes: 'ok' },
    [],
  );
  t.equal(episodeOf(again, completed())?.review_outcome, 'passed_after_revision');
  t.equal(episodeOf(executed, completed({ phases: ['plan', 'execute'] }))?.review_outcome, null);
});

t.test(
  'a failed turn that planned records its failure; one that never planned or skipped records none',
  async (t) => {
    const failed = episodeOf(executed, completed({ failed: true, error: 'budget exhausted' }));
    t.equal(failed?.review_outcome, 'failed');
    t.equal(failed?.account, 'Wrote them.\n\nThe turn failed: budget exhausted');
    t.equal(episodeOf(draftOf(wake), completed({ failed: true, error: 'provider down' })), null);
    const skipped = noteOutcome(draftOf(wake), { phase: 'plan', decision: 'skip', plan: '' }, []);
    t.equal(episodeOf(skipped, completed({ phases: ['plan'] })), null);
  },
);
