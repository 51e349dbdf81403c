/**
 * The agents read model's `needs` follows the seat's open questions: set by a completion that carries
 * them (with their ids), left standing by later turns — one that decided `skip` included — and cleared
 * only by the records that close them (`human_answered`, `question_withdrawn`, `needs_cleared`), or by a
 * completion that carries none. Replaying the same events gives the same row.
 */
import t from 'tap';
import { ReadModels } from '../../../projections/index.js';
import { applyAgentEvent } from '../../../projections/agents/agents.projection.js';
import { emptyAgentsState, type AgentsState } from '../../../projections/agents/agents.state.js';
import type { EventRecord } from '../../../schema/index.js';
import { companyDoc, event, phaseStarted, turnCompleted } from '../fixtures/readmodels.js';

const now = Date.parse('2026-11-23T12:00:00Z');
/** The read models (the row's activity) and the agents state beside them (the wait's detail and ids). */
function models() {
  const read = new ReadModels({ now: () => now });
  read.setCompany(companyDoc, 'rev-1');
  const state: AgentsState = emptyAgentsState();
  return {
    applyEvent(e: EventRecord) {
      read.applyEvent(e);
      applyAgentEvent(state, e);
    },
    agent: (id: string) => read.agent(id),
    needs: () => state.seats.get('cto')?.needs ?? null,
  };
}
const at = (minute: number): string => `2026-11-23T10:${String(minute).padStart(2, '0')}:00.000Z`;
const asked = (ids: string[], reason = 'Which branch?') => ({ reason, audience: 'dana', ids });
const completed = (turn: string, minute: number, needs?: ReturnType<typeof asked>) =>
  event(
    'agent_turn_completed',
    'cto',
    turnCompleted(turn, at(minute), needs ? { needs: { ...needs, raised: [] } } : {}),
    at(minute),
  );
const started = (turn: string, minute: number) =>
  event('agent_phase_started', 'cto', phaseStarted(turn, 'plan', 0, at(minute)), at(minute));
const closed = (type: string, ids: string[], minute: number, remaining: ReturnType<typeof asked> | null) =>
  event(type, 'cto', { need_ids: ids, by: 'dana', turn_id: null, remaining }, at(minute));

t.test('an unrelated turn that decides skip leaves needs; the human’s answer clears it', async (t) => {
  const m = models();
  m.applyEvent(completed('turn-1', 1, asked(['q1'])));
  t.equal(m.agent('cto')!.activity, 'needs');
  t.same(m.needs(), { since: at(1), detail: 'Which branch?', ids: ['q1'] });
  // A schedule wakes the seat; its turn plans `skip` and completes still waiting on q1.
  m.applyEvent(started('turn-2', 2));
  t.equal(m.agent('cto')!.activity, 'working', 'a running turn reads working');
  m.applyEvent(completed('turn-2', 3, asked(['q1'])));
  t.equal(m.agent('cto')!.activity, 'needs', 'the skip turn did not clear it');
  t.equal(m.needs()?.since, at(1), 'the wait goes on since it began');
  m.applyEvent(closed('human_answered', ['q1'], 4, null));
  t.equal(m.agent('cto')!.activity, 'idle');
  t.equal(m.needs(), null);
});

t.test('a phase start alone never clears a wait that names its questions', async (t) => {
  const m = models();
  m.applyEvent(completed('turn-1', 1, asked(['q1'])));
  m.applyEvent(started('turn-2', 2));
  m.applyEvent(event('agent_phase_started', 'cto', phaseStarted('turn-2', 'execute', 0, at(3)), at(3)));
  t.same(m.needs()?.ids, ['q1']);
});

t.test('withdrawn and cleared close questions one record at a time', async (t) => {
  const m = models();
  m.applyEvent(completed('turn-1', 1, asked(['q1', 'q2'], 'Ship? (and 1 more question)')));
  t.same(m.agent('cto')!.needs?.ids, ['q1', 'q2']);
  m.applyEvent(closed('question_withdrawn', ['q1'], 2, asked(['q2'], 'Budget?')));
  t.equal(m.agent('cto')!.activity, 'needs', 'one question still open');
  t.same(m.needs(), { since: at(1), detail: 'Budget?', ids: ['q2'] });
  t.same(
    m.agent('cto')!.needs,
    { reason: 'Budget?', since: at(1), ids: ['q2'] },
    'the row names the questions still open: the ids needs/clear takes',
  );
  m.applyEvent(closed('needs_cleared', ['q2'], 3, null));
  t.equal(m.agent('cto')!.activity, 'idle');
  // A record for questions no longer open changes nothing.
  m.applyEvent(closed('needs_cleared', ['q2'], 4, null));
  t.equal(m.needs(), null);
});

t.test('a completion that carries no needs says the seat waits on nobody', async (t) => {
  const m = models();
  m.applyEvent(completed('turn-1', 1, asked(['q1'])));
  m.applyEvent(completed('turn-2', 2));
  t.equal(m.agent('cto')!.activity, 'idle');
});

t.test('an older record never reopens or closes a newer wait; a replay gives the same row', async (t) => {
  const events: EventRecord[] = [
    completed('turn-1', 1, asked(['q1'])),
    started('turn-2', 2),
    completed('turn-2', 3, asked(['q1'])),
    closed('human_answered', ['q1'], 5, null),
    // Late news: a completion older than the answer.
    completed('turn-0', 4, asked(['q1'])),
    completed('turn-3', 6, asked(['q3'], 'Who owns billing?')),
  ];
  const live = models();
  for (const e of events) live.applyEvent(e);
  t.same(live.needs(), { since: at(6), detail: 'Who owns billing?', ids: ['q3'] });
  const replayed = models();
  for (const e of events) replayed.applyEvent(e);
  t.same(replayed.agent('cto'), live.agent('cto'));
});

t.test('a malformed closing record is ignored', async (t) => {
  const m = models();
  m.applyEvent(completed('turn-1', 1, asked(['q1'])));
  m.applyEvent(event('needs_cleared', 'cto', { need_ids: 'q1' }, at(2)));
  t.equal(m.agent('cto')!.activity, 'needs');
});

t.test(
  'a closing record folded before the older completion that raised the wait leaves no wait',
  async (t) => {
    // A boot replay folds the closing records as they come and the seed-bounded completions after them.
    for (const type of ['needs_cleared', 'human_answered', 'question_withdrawn']) {
      const m = models();
      m.applyEvent(closed(type, ['q1'], 2, null));
      m.applyEvent(completed('turn-1', 1, asked(['q1'])));
      t.equal(m.agent('cto')!.activity, 'idle', `${type}: the older completion does not reopen the wait`);
      t.equal(m.needs(), null, type);
    }
  },
);

t.test('a wait an earlier release reported without ids reads no ids on the row', async (t) => {
  const m = models();
  m.applyEvent(
    completed('turn-1', 1, { reason: 'Which branch?', audience: 'dana' } as ReturnType<typeof asked>),
  );
  t.same(m.agent('cto')!.needs, { reason: 'Which branch?', since: at(1), ids: [] });
});
