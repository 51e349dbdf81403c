/**
 * A seat lists and reads the company's tool skills in a turn: `skill_list` names each with its first
 * line, `skill_read` gives the content with `{{name}}` placeholders filled from `skill_variables` (the
 * native set first on a name both sources hold), an unknown name is a tool error suggesting the near one,
 * and the skills the turn read (not the refused read) become its episode's `skills_used`.
 */
import t from 'tap';
import { createSkillShelf, skillSet } from '../../../actors/index.js';
import { Buckets } from '../../../bus/index.js';
import { Payloads } from '../../../schema/index.js';
import type { Step } from '../../fixtures/llm/script.js';
import { startCompany } from '../seat/harness.js';

const usage = { prompt_tokens: 10, completion_tokens: 5 };
const at = '2026-12-01T00:00:00.000Z';
const script: Step[] = [
  {
    kind: 'tool_calls',
    calls: [{ id: 'l1', name: 'skill_list', arguments: {} }],
    usage,
  },
  {
    kind: 'text',
    text: JSON.stringify({ decision: 'plan', steps: ['read the skill'], tools: ['skill_read'] }),
    usage,
  },
  {
    kind: 'tool_calls',
    calls: [
      { id: 'r1', name: 'skill_read', arguments: { name: 'deploy' } },
      { id: 'r2', name: 'skill_read', arguments: { name: 'Rollbak' } },
    ],
    usage,
  },
  { kind: 'text', text: 'Read the deploy skill.', usage },
  { kind: 'text', text: '{"verdict":"done","notes":"ok"}', usage },
];

t.test('a seat lists and reads tool skills, and the episode names the skills it read', async (t) => {
  let shelfKv: Parameters<typeof createSkillShelf>[0]['kv'] | null = null;
  const h = await startCompany(t, {
    script,
    skills: createSkillShelf({
      get kv() {
        if (shelfKv === null) throw new Error('the bucket is opened below');
        return shelfKv;
      },
      places: () => [
        { source: 'native', label: 'knowledge base container TS' },
        { source: 'wiki', label: 'wiki space TS' },
      ],
      variables: () => ({ wiki_base_url: 'https://wiki.acme.example' }),
    }),
  });
  const kv = await h.bus.kv({ name: Buckets.ToolSkills, history: 2 });
  shelfKv = kv;
  const put = (set: ReturnType<typeof skillSet>) =>
    kv.put(set.source, new TextEncoder().encode(JSON.stringify(set)));
  await put(
    skillSet(
      'native',
      'TS',
      [
        {
          id: 'n1',
          title: 'Deploy',
          body: 'Ship with `svc deploy`.\nDocs: {{wiki_base_url}}/deploy',
          url: null,
          updated_at: at,
        },
      ],
      new Date(),
    ),
  );
  await put(skillSet('wiki', 'TS', [
    { id: 'w1', title: 'Deploy', body: 'An older wiki copy.', url: 'https://wiki/1', updated_at: at },
    { id: 'w2', title: 'Rollback', body: 'Revert the revision: {{unknown}}.', url: 'https://wiki/2', updated_at: at },
  ], new Date())); // prettier-ignore

  await h.wake('ada', 'wake-1', 'Deploy the release');
  await h.waitFor((e) => e.type === 'agent_turn_completed');
  const phases = (await h.events('agent_phase_completed')).map((e) =>
    Payloads.AgentPhaseCompleted.parse(e.payload),
  );
  const results = phases.flatMap((p) => p.tool_executions).map((x) => [x.name, x.result, x.error ?? null]);
  t.match(results[0], ['skill_list', /2 tool skills:\n- Deploy — Ship with svc deploy.\n- Rollback — Revert the revision: \{\{unknown\}\}\./]); // prettier-ignore
  t.match(results[1], ['skill_read', /^# Deploy\n\(native\)\n\nShip with `svc deploy`.\nDocs: https:\/\/wiki.acme.example\/deploy$/]); // prettier-ignore
  t.match(results[2], ['skill_read', /did you mean "Rollback"/, /did you mean/]);
  const episode = await h.waitFor((e) => e.type === 'episode_recorded');
  t.same(Payloads.EpisodeRecorded.parse(episode.payload).skills_used, ['Deploy'], 'by its exact name');
});
