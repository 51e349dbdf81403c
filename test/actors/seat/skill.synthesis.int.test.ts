/**
 * Skill synthesis in a seat (`learning.skill_synthesis.enabled`): a turn reviewed as done in two tool calls
 * is followed by one model call as the `skill_synthesizer` worker, its spend recorded under the seat; the
 * skill it writes is recorded as `skill_synthesized` (version 1), kept in the seat's learned set, and listed
 * by the seat's next `skill_list` as `learned`. With synthesis off (the default) no such call is made.
 */
import t from 'tap';
import { readLearned } from '../../../actors/index.js';
import { Buckets } from '../../../bus/index.js';
import { agentId, Payloads } from '../../../schema/index.js';
import type { Step } from '../../fixtures/llm/script.js';
import { startCompany } from './harness.js';

const usage = { prompt_tokens: 10, completion_tokens: 5 };
const turn: Step[] = [
  { kind: 'text', text: '{"decision":"plan","steps":["echo twice"],"tools":["files_echo"]}', usage },
  {
    kind: 'tool_calls',
    calls: [
      { id: 'e1', name: 'files_echo', arguments: { text: 'one' } },
      { id: 'e2', name: 'files_echo', arguments: { text: 'two' } },
    ],
    usage,
  },
  { kind: 'text', text: 'Echoed both.', usage },
  { kind: 'text', text: '{"verdict":"done","notes":"ok"}', usage },
];
const skill = {
  name: 'Echo twice',
  description: 'When a message must be heard twice',
  content: '1. files_echo the text\n2. files_echo it again',
};

t.test('a done turn of two tool calls becomes a learned skill the seat lists next time', async (t) => {
  const h = await startCompany(t, {
    synthesis: true,
    extra: { learning: { skill_synthesis: { enabled: true } } },
    script: [
      ...turn,
      { kind: 'text', text: JSON.stringify({ skill }), usage: { prompt_tokens: 300, completion_tokens: 40 } },
      { kind: 'tool_calls', calls: [{ id: 'l1', name: 'skill_list', arguments: {} }], usage },
      { kind: 'text', text: '{"decision":"skip"}', usage },
    ],
  });
  await h.wake('ada', 'wake-1', 'Echo one and two');
  const first = await h.waitFor((e) => e.type === 'agent_turn_completed');
  const recorded = await h.waitFor((e) => e.type === 'skill_synthesized');
  const payload = Payloads.SkillSynthesized.parse(recorded.payload);
  t.match(payload, { ...skill, version: 1, tool_sequence: ['files_echo', 'files_echo'] });
  t.equal(recorded.agent_id, 'ada');

  const asked = h.llm.requests[4]!.body as { messages: Array<{ content: string }> };
  t.match(JSON.stringify(asked.messages), /Tools called, in order: files_echo, files_echo/);
  const spend = await h.spend();
  t.match(
    spend.filter((s) => s.worker === 'skill_synthesizer'),
    [{ phase: 'auxiliary', handle: 'ada', input_tokens: 300, output_tokens: 40 }],
  );

  const kv = await h.bus.kv({ name: Buckets.ToolSkills, history: 2 });
  const learned = await readLearned(kv, agentId('Acme', 'ada'));
  t.same(
    learned.skills.map((s) => s.name),
    ['Echo twice'],
  );

  await h.wake('ada', 'wake-2', 'What do you know how to do?');
  await h.waitFor(
    (e) => e.type === 'agent_turn_completed' && e.payload['turn_id'] !== first.payload['turn_id'],
  );
  const listed = (await h.events('agent_phase_completed'))
    .map((e) => Payloads.AgentPhaseCompleted.parse(e.payload))
    .flatMap((p) => p.tool_executions)
    .find((x) => x.name === 'skill_list');
  t.match(listed?.result, /1 tool skill:\n- Echo twice — When a message must be heard twice/);
});

t.test('with synthesis off no model call follows the turn', async (t) => {
  const h = await startCompany(t, { synthesis: true, script: [...turn] });
  await h.wake('ada', 'wake-1', 'Echo one and two');
  await h.waitFor((e) => e.type === 'episode_recorded');
  await h.stopSeats();
  t.equal(h.llm.requests.length, 4, 'the turn’s four calls, none after');
  t.notOk((await h.events()).some((e) => e.type === 'skill_synthesized'));
});
