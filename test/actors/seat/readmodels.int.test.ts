import t from 'tap';
import { cleanTurn, readModelsFor, startCompany } from './harness.js';

t.test('the agents read model folds what a turn publishes into the row and llm_history', async (t) => {
  const h = await startCompany(t, { script: cleanTurn });
  await h.wake('ada');
  await h.waitFor((e) => e.type === 'agent_turn_completed');
  const models = readModelsFor(h);
  for (const e of await h.events()) models.applyEvent(e);
  for (const s of await h.spend()) models.applySpend(s);
  const ada = models.agent('ada');
  t.ok(ada);
  t.same(
    ada!.llm_history.map((r) => r.phase),
    ['review', 'execute', 'plan'],
    'three phase rows, newest first',
  );
  t.match(ada, { activity: 'idle', stopped_reason: null, paused: null, last_turn: { failed: false } });
  t.equal(models.agent('hu'), null, 'the human seat has no agent row');
});
