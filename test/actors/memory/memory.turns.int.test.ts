import t from 'tap';
import { episodeId } from '../../../actors/index.js';
import { readModelRoutes, readQuestions } from '../../../http/index.js';
import { ReadModels } from '../../../projections/index.js';
import { agentId, Payloads } from '../../../schema/index.js';
import { call, startHarness } from '../../http/fixtures/gateway-harness.js';
import type { Step } from '../../fixtures/llm/script.js';
import { company, startCompany } from '../seat/harness.js';

const usage = { prompt_tokens: 10, completion_tokens: 5 };
const plan = (tools: string[]): Step => ({
  kind: 'text',
  text: JSON.stringify({ decision: 'plan', steps: ['do it'], success_criteria: ['done'], tools }),
  usage,
});
const accept: Step = { kind: 'text', text: '{"verdict":"done","notes":"ok"}', usage };

/** Turn 1 remembers a long and a short note and asks a human; turn 2 recalls the note while planning. */
const script: Step[] = [
  plan(['memory_remember', 'ask_human']),
  {
    kind: 'tool_calls',
    calls: [
      { id: 'm1', name: 'memory_remember', arguments: { content: 'The release train leaves on Fridays' } },
      {
        id: 'm2',
        name: 'memory_remember',
        arguments: { content: 'Standup moved to 10:30 today', kind: 'short', ttl_seconds: 60 },
      },
      { id: 'a1', name: 'ask_human', arguments: { to: 'Hu', question: 'Which branch do we release from?' } },
    ],
    usage,
  },
  { kind: 'text', text: 'Noted the release day and asked Hu about the branch.', usage },
  accept,
  {
    kind: 'tool_calls',
    calls: [{ id: 'r1', name: 'memory_recall', arguments: { query: 'when does the release leave' } }],
    usage,
  },
  plan([]),
  { kind: 'text', text: 'The release train leaves on Fridays.', usage },
  accept,
];

t.test(
  'a seat remembers in one turn and recalls in the next; ask_human leaves it in needs while the question is open; each turn records one episode',
  async (t) => {
    const h = await startCompany(t, { script });
    // Read models over everything stored so far; their clock runs past the short note's ttl.
    const fold = async (): Promise<ReadModels> => {
      const models = new ReadModels({ memoryStore: h.memory, now: () => Date.now() + 5 * 60_000 });
      models.setCompany(company(h.llm.baseUrl), 'rev-1');
      for (const e of await h.events()) models.applyEvent(e);
      return models;
    };

    // Turn 1: remember twice, ask a human.
    await h.wake('ada', 'wake-1', 'Note the release day and find out the branch');
    const first = await h.waitFor((e) => e.type === 'agent_turn_completed');
    const turn1 = Payloads.AgentTurnCompleted.parse(first.payload);
    t.equal(turn1.failed, false);
    t.match(turn1.needs, { reason: 'Which branch do we release from?', audience: 'hu' });
    t.equal(turn1.needs?.ids?.length, 1);
    t.same(turn1.needs?.raised, turn1.needs?.ids, 'the turn raised the question it carries');
    t.equal((await h.events('memory_remembered')).length, 2, 'one memory_remembered per note');
    t.equal((await h.events('human_asked')).length, 1);
    t.match((await fold()).agent('ada'), { activity: 'needs' }, 'the agent row waits on the human');

    // Turn 2: the plan recalls what turn 1 kept.
    await h.wake('ada', 'wake-2', 'When does the release leave?');
    const second = await h.waitFor(
      (e) => e.type === 'agent_turn_completed' && e.payload['turn_id'] !== turn1.turn_id,
    );
    const turn2 = Payloads.AgentTurnCompleted.parse(second.payload);
    t.same(turn2.needs?.raised, [], 'the second turn asked nobody');
    t.same(turn2.needs?.ids, turn1.needs?.ids, 'the question is still open: Hu never answered');
    const planPhase = (await h.events('agent_phase_completed'))
      .map((e) => Payloads.AgentPhaseCompleted.parse(e.payload))
      .find((p) => p.turn_id === turn2.turn_id && p.phase === 'plan');
    const recall = planPhase?.tool_executions.find((x) => x.name === 'memory_recall');
    t.equal(recall?.error, null);
    t.match(recall?.result, /The release train leaves on Fridays/, 'recalled by the query');
    t.notMatch(recall?.result, /Standup/, 'a note matching no term is left out');
    t.match((await fold()).agent('ada'), { activity: 'needs' }, 'an unrelated turn leaves the wait');

    // One episode per completed turn, with the turn's facts (published right after the completion).
    await h.waitFor((e) => e.type === 'episode_recorded' && e.payload['turn_id'] === turn2.turn_id);
    const episodes = await h.events('episode_recorded');
    t.equal(episodes.length, 2);
    const [e1, e2] = episodes.map((e) => Payloads.EpisodeRecorded.parse(e.payload));
    t.match(e1, {
      id: episodeId(turn1.turn_id),
      turn_id: turn1.turn_id,
      task_summary: 'Note the release day and find out the branch',
      ask: 'Note the release day and find out the branch',
      plan_summary: /do it/,
      tool_sequence: ['memory_remember', 'memory_remember', 'ask_human'],
      skills_used: [],
      review_outcome: 'passed_first',
      started_at: turn1.started_at,
      ended_at: turn1.ended_at,
      duration_ms: turn1.duration_ms,
      account: 'Noted the release day and asked Hu about the branch.',
    });
    t.match(e2, { turn_id: turn2.turn_id, tool_sequence: ['memory_recall'] });
    t.equal(episodes[0]!.agent_id, 'ada');
    t.equal(episodes[0]!.category, 'learning');
    t.equal(episodes[0]!.id, `episode-${e1!.id}`, 'the record id is the episode id (de-duplicated)');

    // The memory view through a real listener: store rows with content, `expired` on short rows.
    const gw = await startHarness({ routes: readModelRoutes(readQuestions(await fold())) });
    t.teardown(() => gw.gw.close());
    const view = await call(`${gw.base}/agents/ada/memory`);
    t.equal(view.status, 200);
    t.match(view.json, {
      handle: 'ada',
      personal_memories: {
        long: [{ content: 'The release train leaves on Fridays', ttl_until: null }],
        short: [{ content: 'Standup moved to 10:30 today', expired: true }],
      },
      episodes: [{ id: e2!.id }, { id: e1!.id, review_outcome: 'passed_first' }],
    });
    const one = await call(`${gw.base}/agents/ada/memory/episodes/${e1!.id}`);
    t.match(one.json, { account: 'Noted the release day and asked Hu about the branch.' });
  },
);

t.test('a seat with learning off cannot remember and records no episode', async (t) => {
  const h = await startCompany(t, {
    script: [
      plan(['memory_remember']),
      {
        kind: 'tool_calls',
        calls: [{ id: 'm1', name: 'memory_remember', arguments: { content: 'keep me' } }],
        usage,
      },
      { kind: 'text', text: 'Could not keep it.', usage },
      accept,
    ],
    extra: { learning: { enabled: false } },
  });
  await h.wake('cy');
  const done = Payloads.AgentTurnCompleted.parse(
    (await h.waitFor((e) => e.type === 'agent_turn_completed')).payload,
  );
  t.equal(done.failed, false);
  const execute = (await h.events('agent_phase_completed'))
    .map((e) => Payloads.AgentPhaseCompleted.parse(e.payload))
    .find((p) => p.phase === 'execute');
  t.match(execute?.tool_executions[0]?.error, /Learning is off/);
  t.same(await h.events('memory_remembered'), []);
  t.same(await h.events('episode_recorded'), []);
  t.same(await h.memory.rows(agentId('Acme', 'cy')), [], 'no row written');
});
