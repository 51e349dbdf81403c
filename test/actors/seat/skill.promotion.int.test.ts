/**
 * Skill promotion in a seat (`learning.skill_promotion.enabled`): a learned skill read in two turns reviewed
 * as done is promoted — recorded as `skill_promoted` and kept in the promoted set — and another seat reads it
 * with `skill_read`, its source naming the seat that learned it. No model call is made for it.
 */
import t from 'tap';
import { learnedKey, readPromoted } from '../../../actors/index.js';
import { Buckets, type Bus, type Kv } from '../../../bus/index.js';
import { agentId, Payloads } from '../../../schema/index.js';
import type { Step } from '../../fixtures/llm/script.js';
import { startCompany } from './harness.js';

const usage = { prompt_tokens: 10, completion_tokens: 5 };
const learned = {
  id: '3d0e5a1c-2b4f-5e6a-8c7d-9e0f1a2b3c4d',
  name: 'Echo twice',
  description: 'When a message must be heard twice',
  content: '1. files_echo the text\n2. files_echo it again',
  tool_sequence: ['files_echo', 'files_echo'],
  version: 1,
  created_at: '2026-12-01T10:00:00.000Z',
  updated_at: '2026-12-01T10:00:00.000Z',
};
/** Ada's learned set holds `learned`; resolves with the bucket. */
async function adaHasLearned(bus: Bus): Promise<Kv> {
  const kv = await bus.kv({ name: Buckets.ToolSkills, history: 2 });
  await kv.put(
    learnedKey(agentId('Acme', 'ada')),
    new TextEncoder().encode(JSON.stringify({ skills: [learned] })),
  );
  return kv;
}

const readingTurn = (id: string): Step[] => [
  { kind: 'tool_calls', calls: [{ id, name: 'skill_read', arguments: { name: 'Echo twice' } }], usage },
  { kind: 'text', text: '{"decision":"plan","steps":["echo twice"],"tools":[]}', usage },
  { kind: 'text', text: 'Echoed it twice.', usage },
  { kind: 'text', text: '{"verdict":"done","notes":"ok"}', usage },
];

t.test('a learned skill read in two done turns is promoted, and another seat reads it', async (t) => {
  const h = await startCompany(t, {
    synthesis: true,
    extra: { learning: { skill_promotion: { enabled: true } } },
    script: [
      ...readingTurn('r1'),
      ...readingTurn('r2'),
      {
        kind: 'tool_calls',
        calls: [{ id: 'b1', name: 'skill_read', arguments: { name: 'echo twice' } }],
        usage,
      },
      { kind: 'text', text: '{"decision":"skip"}', usage },
    ],
  });
  const kv = await adaHasLearned(h.bus);

  await h.wake('ada', 'wake-1', 'Echo hello');
  const first = await h.waitFor((e) => e.type === 'episode_recorded');
  t.same(Payloads.EpisodeRecorded.parse(first.payload).skills_used, ['Echo twice']);
  await h.wake('ada', 'wake-2', 'Echo hello again');
  const promoted = await h.waitFor((e) => e.type === 'skill_promoted');
  t.same(Payloads.SkillPromoted.parse(promoted.payload), {
    id: learned.id,
    name: 'Echo twice',
    version: 1,
    from: 'ada',
    uses: 2,
  });
  t.equal(promoted.agent_id, 'ada');
  t.match((await readPromoted(kv)).skills, [{ ...learned, from: 'ada' }]);

  await h.wake('bob', 'wake-3', 'How do I echo twice?');
  await h.waitFor((e) => e.type === 'agent_turn_completed' && e.agent_id === 'bob');
  const read = (await h.events('agent_phase_completed'))
    .filter((e) => e.agent_id === 'bob')
    .map((e) => Payloads.AgentPhaseCompleted.parse(e.payload))
    .flatMap((p) => p.tool_executions)
    .find((x) => x.name === 'skill_read');
  t.match(read?.result, /promoted from @ada/);
  t.match(read?.result, /files_echo it again/);
  await h.stopSeats();
  t.equal((await h.events('skill_promoted')).length, 1, 'promoted once');
  t.equal(h.llm.requests.length, 10, 'the turns’ calls, none for the promotion');
});

t.test('with promotion off a learned skill stays the seat’s own', async (t) => {
  const h = await startCompany(t, {
    synthesis: true,
    script: [...readingTurn('r1'), ...readingTurn('r2')],
  });
  const kv = await adaHasLearned(h.bus);
  await h.wake('ada', 'wake-1', 'Echo hello');
  const first = await h.waitFor((e) => e.type === 'episode_recorded');
  await h.wake('ada', 'wake-2', 'Echo hello again');
  await h.waitFor((e) => e.type === 'episode_recorded' && e.id !== first.id);
  await h.stopSeats();
  t.same(await h.events('skill_promoted'), []);
  t.same((await readPromoted(kv)).skills, []);
});
