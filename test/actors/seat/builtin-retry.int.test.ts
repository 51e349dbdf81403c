/**
 * Builtins are idempotent by call id: a call a resumed turn retries (it was in flight at a cut) carries the
 * same call id, and `memory_remember` and `ask_human` derive what they write from it — the same memory row,
 * need and event, stored once. Without a call id every call writes anew. A seat waiting on as many open
 * questions as it may hold is refused the next `ask_human` (a tool error), so no open question is dropped.
 */
import t from 'tap';
import { Streams, Subjects } from '../../../bus/index.js';
import { agentId, NEEDS_KEPT_PER_SEAT } from '../../../schema/index.js';
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

t.test('ask_human past the open-question cap is a tool error; no open question is dropped', async (t) => {
  const h = await startCompany(t, { script: [] });
  const ask = (i: number) =>
    h.tools.router.call(
      { ...ada, call_id: `turn-1/execute.0/${i}.0` },
      { name: 'ask_human', arguments: { to: 'hu', question: `Question ${i}?` } },
    );
  // One more than the seat may hold, asked at once (a model may call tools in parallel).
  const answers = await Promise.all(Array.from({ length: NEEDS_KEPT_PER_SEAT + 1 }, (_, i) => ask(i)));
  const refused = answers.filter((a) => a.is_error);
  t.equal(refused.length, 1, 'one ask refused');
  t.match(
    refused[0]!.content[0]?.text,
    /^Not recorded: this seat already waits on 16 open questions.*withdraw_question/,
  );
  const open = h.runtime.host('ada')?.needs() ?? [];
  t.equal(open.length, NEEDS_KEPT_PER_SEAT, 'the seat waits on 16');
  const asked = await h.events('human_asked');
  t.equal(asked.length, NEEDS_KEPT_PER_SEAT, 'the refused ask published no human_asked');
  t.same(
    open.map((n) => n.id).sort(),
    asked.map((e) => e.payload['need_id'] as string).sort(),
    'every question asked is still open: none was dropped',
  );
  const records: unknown[] = [];
  for await (const msg of h.bus.replay(Streams.Seats, { subject: Subjects.seatLog('ada') }))
    records.push(JSON.parse(new TextDecoder().decode(msg.data)));
  t.equal(records.length, NEEDS_KEPT_PER_SEAT, 'the log recorded 16 needs and no closing');

  // A recorded ask retried (same call id) is still answered as recorded; a withdrawal makes room.
  const again = await ask(answers.findIndex((a) => !a.is_error));
  t.equal(again.is_error, false, 'a retry of a recorded ask is no new question');
  const withdrawn = await h.tools.router.call(
    { ...ada, call_id: 'turn-1/execute.0/99.0' },
    { name: 'withdraw_question', arguments: { id: open[0]!.id } },
  );
  t.equal(withdrawn.is_error, false);
  t.equal((await ask(100)).is_error, false, 'room again after a withdrawal');
  t.equal(h.runtime.host('ada')?.needs().length, NEEDS_KEPT_PER_SEAT);
});
