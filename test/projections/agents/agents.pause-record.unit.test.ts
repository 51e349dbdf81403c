import t from 'tap';
import { agentsModels, event } from '../fixtures/readmodels.js';

const now = Date.parse('2026-11-23T12:00:00Z');
const record = { by: 'ops', at: '2026-01-02T03:04:05Z', reason: 'audit', stop_running: false };

const models = () => agentsModels(now);

t.test('a pause record alone reads paused and is pushed; its removal is pushed too', async (t) => {
  const { m, pushed } = models();
  m.pauseRecord('cto', record);
  t.match(m.agent('cto'), { paused: record, activity: 'stopped', stopped_reason: 'paused' });
  t.same(pushed.at(-1)?.['cto']?.['paused'], record, 'the overlay carries it');
  t.same(m.agentList().find((r) => r.id === 'cto')?.paused, record, '/agents too');
  m.pauseRecord('cto', null);
  t.match(m.agent('cto'), { paused: null, activity: 'idle' });
  t.equal(pushed.at(-1)?.['cto']?.['paused'], null, 'the removal is pushed');
});

t.test('events that know the pause or the resume say what the row reads', async (t) => {
  const { m } = models();
  const announced = { ...record, at: '2026-11-23T10:00:00Z', reason: 'from the event' };
  m.applyEvent(event('agent_paused', 'cto', { paused: announced }, '2026-11-23T10:00:00Z'));
  m.pauseRecord('cto', record);
  t.same(m.agent('cto')?.paused, announced, 'the event is the newer word');
  m.applyEvent(
    event('agent_resumed', 'cto', { by: 'ops', at: '2026-11-23T11:00:00Z' }, '2026-11-23T11:00:00Z'),
  );
  t.equal(m.agent('cto')?.paused, null, 'a resume in the history is not undone by a record still read');
});

t.test('a pause record of a human seat or an unknown handle changes no row', async (t) => {
  const { m, pushed } = models();
  m.pauseRecord('dana', record);
  m.pauseRecord('nobody', record);
  t.equal(pushed.length, 0);
  t.same(
    m.agentList().map((r) => r.paused),
    [null, null, null],
  );
});
