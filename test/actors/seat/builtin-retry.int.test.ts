/**
 * Builtins are idempotent by call id: a call a resumed turn retries (it was in flight at a cut) carries the
 * same call id, and `memory_remember` and `ask_human` derive what they write from it — the same memory row,
 * need and event, stored once. Without a call id every call writes anew.
 */
import t from 'tap';
import { agentId } from '../../../schema/index.js';
import { startCompany } from './harness.js';

const ada = { seat: 'ada', agent_id: agentId('Acme', 'ada'), turn_id: 'turn-1' };

t.test('memory_remember retried with the same call id keeps one row and one event', async (t) => {
  const h = await startCompany(t, { script: [] });
  const remember = { name: 'memory_remember', arguments: { content: 'the release is on Friday' } };
  const ctx = { ...ada, call_id: 'turn-1/execute.0/0.0' };
  const first = await h.tools.router.call(ctx, remember);
  const again = await h.tools.router.call(ctx, remember);
  t.equal(first.is_error, false);
  t.same(again.content, first.content, 'the retry answers with the same row id');
  const rows = await h.memory.recall(ada.agent_id, {
    query: null,
    kind: null,
    limit: 50,
    include_expired: true,
    now: new Date(),
  });
  t.equal(rows.length, 1, 'one row');
  t.equal((await h.events('memory_remembered')).length, 1, 'one event');

  // Another call (another position in the turn) is another note.
  await h.tools.router.call({ ...ada, call_id: 'turn-1/execute.0/1.0' }, remember);
  await h.tools.router.call(ada, remember);
  t.equal((await h.events('memory_remembered')).length, 3, 'other calls and calls without an id write anew');
});

t.test('ask_human retried with the same call id records one need and one human_asked', async (t) => {
  const h = await startCompany(t, { script: [] });
  const ask = { name: 'ask_human', arguments: { to: 'hu', question: 'May I ship?' } };
  const ctx = { ...ada, call_id: 'turn-1/execute.0/0.0' };
  t.equal((await h.tools.router.call(ctx, ask)).is_error, false);
  await h.tools.router.call(ctx, ask);
  const asked = await h.events('human_asked');
  t.equal(asked.length, 1, 'one human_asked');
  const needs = h.runtime.host('ada')?.needs() ?? [];
  t.equal(needs.length, 1, 'the retry names the same need: the seat waits on one');
  t.equal(needs[0]!.id, asked[0]!.payload['need_id']);
});
