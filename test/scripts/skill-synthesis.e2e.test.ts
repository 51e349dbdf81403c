/**
 * Skill synthesis inside `svc serve` (JetStream, so the test can wake a seat on the node's own inbox), with
 * `learning.skill_synthesis` and `learning.skill_refinement` on (ops/skills.md "Learned skills"): a turn
 * reviewed as done in two tool calls becomes a learned skill listed by the memory view; a later turn that
 * writes the same name refines it (version 2, `created_at` kept); a turn done in one tool call asks nothing.
 * After a restart the view still lists the skill, the notes and the episodes.
 */
import t from 'tap';
import { startLlmServer } from '../fixtures/llm/llm-server.js';
import type { Step } from '../fixtures/llm/script.js';
import { startBusNode } from '../harness/bus-node.js';
import { restartNode, TOKEN } from '../harness/serve-node.js';
import { until } from '../harness/until.js';
import { mentionWake, queueWake } from '../harness/wake.js';
import { localProviders } from '../fixtures/llm/providers.js';

const usage = { prompt_tokens: 10, completion_tokens: 5 };
const plan: Step = {
  kind: 'text',
  text: '{"decision":"plan","steps":["note it"],"tools":["memory_remember"]}',
  usage,
};
const remember = (id: string, content: string) => ({ id, name: 'memory_remember', arguments: { content } });
const done: Step = { kind: 'text', text: '{"verdict":"done","notes":"ok"}', usage };

type Row = Record<string, unknown>;
interface View {
  personal_memories: { long: Row[]; short: Row[] };
  episodes: Row[];
  synthesized_skills: Row[];
}

t.test(
  'a served seat learns a skill from a turn done in two tool calls, refines it, and keeps it past a restart',
  async (t) => {
    const turns: Step[] = [
      plan,
      {
        kind: 'tool_calls',
        calls: [remember('a1', 'Release 1 notes'), remember('a2', 'Release 1 date')],
        usage,
      },
      { kind: 'text', text: 'Kept release 1.', usage },
      done,
      plan,
      {
        kind: 'tool_calls',
        calls: [remember('b1', 'Release 2 notes'), remember('b2', 'Release 2 date')],
        usage,
      },
      { kind: 'text', text: 'Kept release 2.', usage },
      done,
      plan,
      { kind: 'tool_calls', calls: [remember('c1', 'Release 3 notes')], usage },
      { kind: 'text', text: 'Kept release 3.', usage },
      done,
    ];
    let turnCalls = 0;
    let synthesisCalls = 0;
    const skill = (content: string): Step => ({
      kind: 'text',
      text: JSON.stringify({
        skill: { name: 'Keep release facts', description: 'When a release is announced', content },
      }),
      usage,
    });
    const llm = await startLlmServer({
      wire: 'openai',
      script: (request) => {
        if (JSON.stringify(request.body).includes('short library of skills'))
          return skill(
            ++synthesisCalls === 1 ? 'Remember the notes, then the date.' : 'Remember both at once.',
          );
        return turns[turnCalls++] ?? { kind: 'status', status: 500 };
      },
    });
    t.teardown(() => llm.close());
    const { node, bus } = await startBusNode(t);
    const put = await fetch(`${node.url}/config`, {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${TOKEN}`,
        'content-type': 'application/json',
        'x-summary': 'skills',
      },
      body: JSON.stringify({
        name: 'Acme',
        providers: localProviders(llm.baseUrl),
        learning: { skill_synthesis: { enabled: true }, skill_refinement: { enabled: true } },
        roles: [{ name: 'Ada' }],
      }),
    });
    t.equal(put.status, 201);
    await node.run.waitForLog((l) => l.msg === 'config applied');
    const view = async (): Promise<View> =>
      (await (await fetch(`${node.url}/agents/ada/memory`)).json()) as View;

    await queueWake(bus, 'ada', mentionWake('Release 1 is out'));
    const first = await until(view, (v) => v.synthesized_skills.length === 1);
    t.match(first.synthesized_skills, [
      {
        id: String,
        name: 'Keep release facts',
        description: 'When a release is announced',
        content: 'Remember the notes, then the date.',
        tool_sequence: ['memory_remember', 'memory_remember'],
        version: 1,
        created_at: String,
        updated_at: String,
      },
    ]);

    await queueWake(bus, 'ada', mentionWake('Release 2 is out'));
    const second = await until(view, (v) => v.synthesized_skills[0]?.['version'] === 2);
    t.equal(second.synthesized_skills.length, 1, 'the same name is refined, not added');
    t.match(second.synthesized_skills[0], {
      id: first.synthesized_skills[0]?.['id'],
      content: 'Remember both at once.',
      created_at: first.synthesized_skills[0]?.['created_at'],
    });

    await queueWake(bus, 'ada', mentionWake('Release 3 is out'));
    const third = await until(view, (v) => v.episodes.length === 3);

    await restartNode(t, node, node.run, 'SIGTERM');
    t.equal(synthesisCalls, 2, 'a turn done in one tool call asks for no skill');
    const restarted = await until(view, (v) => v.episodes.length === 3);
    t.same(restarted.synthesized_skills, second.synthesized_skills, 'the skill outlives the restart');
    t.same(restarted.personal_memories, third.personal_memories, 'so do the notes');
    t.same(restarted.episodes, third.episodes, 'and the episodes');
    t.equal(restarted.personal_memories.long.length, 5);
  },
);
