/**
 * A seat's open questions as its own log keeps them: the row reads `needs` from them when the event history
 * holds no word of the seat's wait (the completion that announced it is older than 30 days), and the events
 * say what the row reads where they speak of it.
 */
import t from 'tap';
import { agentsModels, event, turnCompleted } from '../fixtures/readmodels.js';

const now = Date.parse('2026-11-23T12:00:00Z');
const question = (id: string, asked_at: string) => ({ id, question: 'Which branch?', asked_at });
const old = question('q-old', '2026-09-01T10:00:00Z');

const models = () => agentsModels(now);

t.test(
  'a question only the seat log holds reads needs and is pushed; its closing is pushed too',
  async (t) => {
    const { m, pushed } = models();
    m.needsRecord('cto', [old]);
    t.match(m.agent('cto'), { activity: 'needs', stopped_reason: null });
    t.same(
      m.agent('cto')?.needs,
      { reason: 'Which branch?', since: old.asked_at, ids: [old.id] },
      'the row names the question it waits on, since when, and its id',
    );
    t.equal(pushed.at(-1)?.['cto']?.['activity'], 'needs', 'the overlay carries it');
    t.equal(m.agentList().find((r) => r.id === 'cto')?.activity, 'needs', '/agents too');
    m.needsRecord('cto', []);
    t.match(m.agent('cto'), { activity: 'idle', needs: null });
    t.equal(pushed.at(-1)?.['cto']?.['activity'], 'idle', 'the closing is pushed');
  },
);

t.test('events that speak of the wait say what the row reads', async (t) => {
  const { m } = models();
  m.needsRecord('cto', [old]);
  const at = '2026-11-23T10:00:00.000Z';
  m.applyEvent(
    event(
      'agent_turn_completed',
      'cto',
      turnCompleted('turn-1', at, { needs: { reason: 'Which branch?', audience: 'dana', ids: ['q-old'] } }),
      at,
    ),
  );
  t.equal(m.agent('cto')?.activity, 'needs');
  t.match(m.agent('cto')?.needs, { reason: 'Which branch?', since: at }, 'the completion’s question');
  const later = '2026-11-23T11:00:00.000Z';
  m.applyEvent(
    event('needs_cleared', 'cto', { need_ids: ['q-old'], by: 'ops', turn_id: null, remaining: null }, later),
  );
  t.equal(m.agent('cto')?.activity, 'idle', 'a closing in the history is not undone by a log still read');
  m.needsRecord('cto', [old, { ...question('q-new', '2026-11-23T11:30:00Z'), question: 'Ship today?' }]);
  t.equal(m.agent('cto')?.activity, 'needs', 'a question asked after the events’ last word fills in');
  t.same(
    m.agent('cto')?.needs,
    { reason: 'Ship today?', since: '2026-11-23T11:30:00Z', ids: ['q-new'] },
    'and is named',
  );
});

t.test('open questions of a human seat or an unknown handle change no row', async (t) => {
  const { m, pushed } = models();
  m.needsRecord('dana', [old]);
  m.needsRecord('nobody', [old]);
  t.equal(pushed.length, 0);
  t.notOk(m.agentList().some((r) => r.activity === 'needs'));
});
