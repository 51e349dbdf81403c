/**
 * Reflection in a seat (`learning.reflect.enabled`): a recorded episode is followed by one model call as the
 * `reflector` worker, its spend recorded under the seat; the lesson is kept as a long personal memory row
 * (with `memory_remembered`), and with `summarize_episodes` the episode is recorded again with the model's
 * summaries. With reflection off (the default) no call follows the turn.
 */
import t from 'tap';
import { agentId, Payloads } from '../../../schema/index.js';
import type { Step } from '../../fixtures/llm/script.js';
import { startCompany } from './harness.js';

const usage = { prompt_tokens: 10, completion_tokens: 5 };
const turn: Step[] = [
  { kind: 'text', text: '{"decision":"plan","steps":["answer"],"tools":[]}', usage },
  { kind: 'text', text: 'Told them it ships on Friday.', usage },
  { kind: 'text', text: '{"verdict":"done","notes":"ok"}', usage },
];
const reflected: Step = {
  kind: 'text',
  text: JSON.stringify({
    lesson: 'Check the release calendar before giving a date.',
    task_summary: 'When item 7 ships',
    plan_summary: 'Looked up the release and answered Friday',
  }),
  usage: { prompt_tokens: 150, completion_tokens: 25 },
};

t.test('a finished turn leaves a lesson in personal memory and a summarised episode', async (t) => {
  const h = await startCompany(t, {
    reflection: true,
    extra: { learning: { reflect: { enabled: true, summarize_episodes: true } } },
    script: [...turn, reflected],
  });
  await h.wake('ada', 'wake-1', 'Item 7: when does it ship?');
  const remembered = await h.waitFor((e) => e.type === 'memory_remembered');
  const summarized = await h.waitFor((e) => e.type === 'episode_recorded' && e.id.endsWith('-summarized'));
  const episodes = (await h.events('episode_recorded')).map((e) => Payloads.EpisodeRecorded.parse(e.payload));
  t.equal(episodes.length, 2, 'the episode, then its summarised record');
  t.equal(episodes[0]!.task_summary, 'Item 7: when does it ship?');
  t.match(Payloads.EpisodeRecorded.parse(summarized.payload), {
    id: episodes[0]!.id,
    task_summary: 'When item 7 ships',
    plan_summary: 'Looked up the release and answered Friday',
    account: 'Told them it ships on Friday.',
  });
  t.match(remembered.payload, { memory_id: `reflection-${episodes[0]!.id}`, kind: 'long', turn_id: String });

  const rows = await h.memory.rows(agentId('Acme', 'ada'));
  t.match(rows, [
    {
      kind: 'long',
      content: 'Check the release calendar before giving a date.',
      metadata: { source: 'reflection', episode_id: episodes[0]!.id, outcome: 'passed_first' },
    },
  ]);
  const asked = JSON.stringify((h.llm.requests[3]!.body as { messages: unknown[] }).messages);
  t.match(asked, /Outcome \(passed_first\): Told them it ships on Friday/);

  const spend = await h.spend();
  t.match(
    spend.filter((s) => s.worker === 'reflector'),
    [{ phase: 'auxiliary', handle: 'ada', input_tokens: 150, output_tokens: 25 }],
  );
});

t.test('without summarize_episodes the episode stands as recorded', async (t) => {
  const h = await startCompany(t, {
    reflection: true,
    extra: { learning: { reflect: { enabled: true } } },
    script: [...turn, reflected],
  });
  await h.wake('ada', 'wake-1', 'Item 7: when does it ship?');
  await h.waitFor((e) => e.type === 'memory_remembered');
  await h.stopSeats();
  t.equal((await h.events('episode_recorded')).length, 1);
  t.notMatch(JSON.stringify(h.llm.requests[3]!.body), /task_summary/, 'no summary asked for');
});

t.test('with reflection off no model call follows the turn', async (t) => {
  const h = await startCompany(t, { reflection: true, script: [...turn] });
  await h.wake('ada', 'wake-1', 'Item 7: when does it ship?');
  await h.waitFor((e) => e.type === 'episode_recorded');
  await h.stopSeats();
  t.equal(h.llm.requests.length, 3, 'the turn’s three calls, none after');
  t.same(await h.memory.rows(agentId('Acme', 'ada')), []);
});

t.test('a later turn on a like task reads the lessons kept; an unlike one does not', async (t) => {
  const h = await startCompany(t, {
    reflection: true,
    extra: { learning: { reflect: { enabled: true } } },
    script: [
      ...turn,
      reflected,
      ...turn,
      { kind: 'text', text: '{"lesson": null}', usage },
      { kind: 'text', text: '{"decision":"skip"}', usage },
    ],
  });
  await h.wake('ada', 'wake-1', 'Item 7: when does it ship?');
  await h.waitFor((e) => e.type === 'memory_remembered');
  await h.wake('ada', 'wake-2', 'Item 9: when does it ship?');
  await h.waitFor(
    (e) => e.type === 'episode_recorded' && e.payload['task_summary'] === 'Item 9: when does it ship?',
  );
  const lessons =
    /Lessons you kept from earlier tasks like this one:\\n- Check the release calendar before giving a date\./;
  t.match(JSON.stringify(h.llm.requests[4]!.body), lessons, 'the plan reads it');
  t.match(JSON.stringify(h.llm.requests[5]!.body), lessons, 'so does execute');
  t.notMatch(JSON.stringify(h.llm.requests[6]!.body), /Lessons you kept/, 'review judges the account alone');
  const done = new Set((await h.events('agent_turn_completed')).map((e) => e.id));
  await h.wake('ada', 'wake-3', 'Rotate the logs');
  await h.waitFor((e) => e.type === 'agent_turn_completed' && !done.has(e.id));
  t.notMatch(
    JSON.stringify(h.llm.requests[8]!.body),
    /Lessons you kept/,
    'one shared word ("the") is not a like task',
  );
});
