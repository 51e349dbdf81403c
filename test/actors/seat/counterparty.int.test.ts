/**
 * Counterparty profiles in a seat (`learning.counterparty.enabled`): a turn woken by a person's delivery is
 * followed by one model call as the `counterparty_profiler` worker, its spend recorded under the seat; the
 * profile is recorded as `counterparty_profile_updated` and kept in `svc_counterparty`, and the next turn
 * that person wakes reads it in its prompt. A bot's delivery keeps no profile; with the setting off (the
 * default) no call follows the turn.
 */
import t from 'tap';
import { Buckets, Streams } from '../../../bus/index.js';
import { Payloads, SpendRecord } from '../../../schema/index.js';
import type { Step } from '../../fixtures/llm/script.js';
import { mentionWake, notificationFrom, queueWake } from '../../harness/wake.js';
import { startCompany } from './harness.js';

const usage = { prompt_tokens: 10, completion_tokens: 5 };
const turn: Step[] = [
  { kind: 'text', text: '{"decision":"plan","steps":["answer"],"tools":[]}', usage },
  { kind: 'text', text: 'Answered the question on item 7.', usage },
  { kind: 'text', text: '{"verdict":"done","notes":"ok"}', usage },
];
const grace = notificationFrom({ id: 'u-42', login: 'grace', name: 'Grace Hopper' });
const profiled = (traits: Record<string, string>, corroborated: boolean): Step => ({
  kind: 'text',
  text: JSON.stringify({ traits, corroborated }),
  usage: { prompt_tokens: 200, completion_tokens: 30 },
});
const messagesOf = (request: { body: unknown }): string =>
  JSON.stringify((request.body as { messages: unknown[] }).messages);

t.test('a person’s deliveries build their profile, and their next turn reads it', async (t) => {
  const h = await startCompany(t, {
    counterparty: true,
    extra: { learning: { counterparty: { enabled: true } } },
    script: [
      ...turn,
      profiled({ role: 'release manager' }, false),
      ...turn,
      profiled({ role: 'release manager', prefers: 'short answers' }, true),
    ],
  });
  await queueWake(
    h.bus,
    'ada',
    mentionWake('Item 7: when does it ship?', { payload: { notification: grace } }),
  );
  const first = await h.waitFor((e) => e.type === 'counterparty_profile_updated');
  t.equal(first.agent_id, 'ada');
  t.match(Payloads.CounterpartyProfileUpdated.parse(first.payload), {
    subject_label: 'Grace Hopper',
    subject_handle: 'grace',
    subject_external_id: 'u-42',
    subject_platform: 'tracker-b',
    subject_name: 'Grace Hopper',
    traits: { role: 'release manager' },
    interaction_count: 1,
    last_corroborated_at: null,
  });
  t.match(messagesOf(h.llm.requests[3]!), /Grace Hopper \(@grace\) on tracker-b/);
  t.match(messagesOf(h.llm.requests[3]!), /Item 7: when does it ship\?/);
  t.notMatch(messagesOf(h.llm.requests[0]!), /What you know about/, 'nothing known the first time');

  await queueWake(h.bus, 'ada', mentionWake('Item 7: and the notes?', { payload: { notification: grace } }));
  const second = await h.waitFor((e) => e.type === 'counterparty_profile_updated' && e.id !== first.id);
  const plan = messagesOf(h.llm.requests[4]!);
  t.match(
    plan,
    /What you know about Grace Hopper \(@grace\) on tracker-b \(1 earlier exchange\):\\n- role: release manager/,
  );
  t.notMatch(messagesOf(h.llm.requests[6]!), /What you know about/, 'review judges the account alone');
  t.match(Payloads.CounterpartyProfileUpdated.parse(second.payload), {
    traits: { role: 'release manager', prefers: 'short answers' },
    interaction_count: 2,
    first_seen_at: Payloads.CounterpartyProfileUpdated.parse(first.payload).first_seen_at,
    last_corroborated_at: String,
  });

  const spend: SpendRecord[] = [];
  for await (const m of h.bus.replay(Streams.Spend, {}))
    spend.push(SpendRecord.parse(JSON.parse(new TextDecoder().decode(m.data))));
  t.match(
    spend.filter((s) => s.worker === 'counterparty_profiler'),
    [
      { phase: 'auxiliary', handle: 'ada', input_tokens: 200, output_tokens: 30 },
      { phase: 'auxiliary', handle: 'ada', input_tokens: 200, output_tokens: 30 },
    ],
  );
  const kv = await h.bus.kv({ name: Buckets.Counterparty, history: 1 });
  t.equal((await kv.keys()).length, 1, 'one profile for the one person');
});

t.test('a bot’s delivery keeps no profile', async (t) => {
  const h = await startCompany(t, {
    counterparty: true,
    extra: { learning: { counterparty: { enabled: true } } },
    script: [...turn],
  });
  const bot = notificationFrom({ id: 'b-1', login: 'ci', bot: true });
  await queueWake(h.bus, 'ada', mentionWake('Build failed', { payload: { notification: bot } }));
  await h.waitFor((e) => e.type === 'episode_recorded');
  await h.stopSeats();
  t.equal(h.llm.requests.length, 3, 'the turn’s three calls, none after');
  t.notOk((await h.events()).some((e) => e.type === 'counterparty_profile_updated'));
});

t.test('with counterparty profiles off no model call follows the turn', async (t) => {
  const h = await startCompany(t, { counterparty: true, script: [...turn] });
  await queueWake(
    h.bus,
    'ada',
    mentionWake('Item 7: when does it ship?', { payload: { notification: grace } }),
  );
  await h.waitFor((e) => e.type === 'episode_recorded');
  await h.stopSeats();
  t.equal(h.llm.requests.length, 3, 'the turn’s three calls, none after');
  t.notOk((await h.events()).some((e) => e.type === 'counterparty_profile_updated'));
});
