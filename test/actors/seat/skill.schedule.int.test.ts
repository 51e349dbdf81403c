/**
 * Scheduled skill synthesis in a seat (`learning.skill_synthesis.scheduler_enabled`): turns done in one tool
 * call wait in the seat's backlog; once three wait, one model call reads them together and the skill it
 * writes is learned like a per-turn one. Within the interval of the last pass, they keep waiting.
 */
import t from 'tap';
import { readLearned } from '../../../actors/index.js';
import { backlogKey } from '../../../actors/seat/skill.schedule.host.js';
import { Buckets } from '../../../bus/index.js';
import { agentId, Payloads } from '../../../schema/index.js';
import type { Step } from '../../fixtures/llm/script.js';
import { startCompany } from './harness.js';

const usage = { prompt_tokens: 10, completion_tokens: 5 };
const smallTurn = (id: string): Step[] => [
  { kind: 'text', text: '{"decision":"plan","steps":["echo"],"tools":["files_echo"]}', usage },
  { kind: 'tool_calls', calls: [{ id, name: 'files_echo', arguments: { text: id } }], usage },
  { kind: 'text', text: 'Echoed.', usage },
  { kind: 'text', text: '{"verdict":"done","notes":"ok"}', usage },
];
const skill = {
  name: 'Echo a message',
  description: 'When asked to echo',
  content: '1. files_echo the text',
};
const learning = { learning: { skill_synthesis: { enabled: true, scheduler_enabled: true } } };
const ada = agentId('Acme', 'ada');

t.test('three small done turns are read together once, and the skill is learned', async (t) => {
  const h = await startCompany(t, {
    synthesis: true,
    extra: learning,
    script: [
      ...smallTurn('e1'),
      ...smallTurn('e2'),
      ...smallTurn('e3'),
      { kind: 'text', text: JSON.stringify({ skill }), usage: { prompt_tokens: 400, completion_tokens: 40 } },
    ],
  });
  for (const n of [1, 2, 3]) {
    await h.wake('ada', `wake-${n}`, `Echo message ${n}`);
    await h.waitFor(
      (e) => e.type === 'episode_recorded' && e.payload['task_summary'] === `Echo message ${n}`,
    );
  }
  const recorded = await h.waitFor((e) => e.type === 'skill_synthesized');
  t.match(Payloads.SkillSynthesized.parse(recorded.payload), {
    ...skill,
    version: 1,
    tool_sequence: ['files_echo'],
  });
  const asked = JSON.stringify(h.llm.requests[12]!.body);
  t.match(asked, /### Task 1\\nAsked: Echo message 1/);
  t.match(asked, /### Task 3\\nAsked: Echo message 3/);
  const kv = await h.bus.kv({ name: Buckets.ToolSkills, history: 2 });
  t.same(
    (await readLearned(kv, ada)).skills.map((s) => s.name),
    ['Echo a message'],
  );
  const backlog = JSON.parse(new TextDecoder().decode((await kv.get(backlogKey(ada)))!.value)) as {
    episodes: unknown[];
    last_run: string | null;
  };
  t.same(backlog.episodes, [], 'the batch left the backlog');
  t.type(backlog.last_run, 'string');
});

t.test('within the interval of the last pass the episodes keep waiting', async (t) => {
  const h = await startCompany(t, {
    synthesis: true,
    extra: learning,
    script: [...smallTurn('e1'), ...smallTurn('e2'), ...smallTurn('e3')],
  });
  const kv = await h.bus.kv({ name: Buckets.ToolSkills, history: 2 });
  const lastRun = new Date(Date.now() - 3600 * 1000).toISOString();
  await kv.put(
    backlogKey(ada),
    new TextEncoder().encode(JSON.stringify({ episodes: [], last_run: lastRun })),
  );
  for (const n of [1, 2, 3]) {
    await h.wake('ada', `wake-${n}`, `Echo message ${n}`);
    await h.waitFor(
      (e) => e.type === 'episode_recorded' && e.payload['task_summary'] === `Echo message ${n}`,
    );
  }
  await h.stopSeats();
  t.equal(h.llm.requests.length, 12, 'the turns’ calls, no pass');
  const backlog = JSON.parse(new TextDecoder().decode((await kv.get(backlogKey(ada)))!.value)) as {
    episodes: Array<{ task: string }>;
    last_run: string;
  };
  t.same(
    backlog.episodes.map((e) => e.task),
    ['Echo message 1', 'Echo message 2', 'Echo message 3'],
  );
  t.equal(backlog.last_run, lastRun);
});
