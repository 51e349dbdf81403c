/**
 * Counterparty profiles in a seat (`learning.counterparty.enabled`): a turn woken by a person's delivery is
 * followed by one model call as the `counterparty_profiler` worker, its spend recorded under the seat; the
 * profile is recorded as `counterparty_profile_updated` and kept in `svc_counterparty`, and the next turn
 * that person wakes reads it in its prompt. Within half an hour of a call the profiler rests: exchanges are
 * counted and held for the next call. A bot's delivery keeps no profile; with the setting off (the
 * default) no call follows the turn.
 */
import t from 'tap';
import { Buckets } from '../../../bus/index.js';
import { Payloads, type EventRecord } from '../../../schema/index.js';
import type { CounterpartyProfile } from '../../../actors/seat/counterparty.js';
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
  let clock = Date.parse('2026-12-01T10:00:00Z');
  const h = await startCompany(t, {
    counterparty: true,
    now: () => new Date(clock),
    extra: { learning: { counterparty: { enabled: true } } },
    script: [
      ...turn,
      profiled({ role: 'release manager' }, false),
      ...turn,
      ...turn,
      profiled({ role: 'release manager', prefers: 'short answers' }, true),
    ],
  });
  const profiles: EventRecord[] = [];
  const nextProfile = async (): Promise<CounterpartyProfile> => {
    const e = await h.waitFor(
      (e) => e.type === 'counterparty_profile_updated' && !profiles.some((p) => p.id === e.id),
    );
    profiles.push(e);
    t.equal(e.agent_id, 'ada');
    return Payloads.CounterpartyProfileUpdated.parse(e.payload);
  };

  await queueWake(
    h.bus,
    'ada',
    mentionWake('Item 7: when does it ship?', { payload: { notification: grace } }),
  );
  const first = await nextProfile();
  t.match(first, {
    subject_label: 'Grace Hopper',
    subject_handle: 'grace',
    subject_external_id: 'u-42',
    subject_platform: 'tracker-b',
    subject_name: 'Grace Hopper',
    traits: { role: 'release manager' },
    interaction_count: 1,
    first_seen_at: '2026-12-01T10:00:00.000Z',
    last_corroborated_at: null,
  });
  t.match(messagesOf(h.llm.requests[3]!), /Grace Hopper \(@grace\) on tracker-b/);
  t.match(messagesOf(h.llm.requests[3]!), /Exchange 1\\nThey asked: Item 7: when does it ship\?/);
  t.notMatch(messagesOf(h.llm.requests[0]!), /What you know about/, 'nothing known the first time');

  // Minutes later the profiler rests: the exchange is counted and held, no call is made.
  clock += 60_000;
  await queueWake(h.bus, 'ada', mentionWake('Item 7: and the notes?', { payload: { notification: grace } }));
  t.match(await nextProfile(), { traits: { role: 'release manager' }, interaction_count: 2 });
  const plan = messagesOf(h.llm.requests[4]!);
  t.match(
    plan,
    /What you know about Grace Hopper \(@grace\) on tracker-b \(1 earlier exchange\):\\n- role: release manager/,
  );
  t.notMatch(messagesOf(h.llm.requests[6]!), /What you know about/, 'review judges the account alone');

  // Past the rest, the model reads both exchanges since it was last asked.
  clock += 31 * 60_000;
  await queueWake(h.bus, 'ada', mentionWake('Item 8: same question', { payload: { notification: grace } }));
  const third = await nextProfile();
  t.match(messagesOf(h.llm.requests[7]!), /\(2 earlier exchanges\)/);
  const asked = messagesOf(h.llm.requests[10]!);
  t.match(asked, /Exchange 1\\nThey asked: Item 7: and the notes\?/);
  t.match(asked, /Exchange 2\\nThey asked: Item 8: same question/);
  t.notMatch(asked, /Exchange 3/);
  t.match(third, {
    traits: { role: 'release manager', prefers: 'short answers' },
    interaction_count: 3,
    first_seen_at: first.first_seen_at,
    last_corroborated_at: new Date(clock).toISOString(),
  });

  const spend = await h.spend();
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
