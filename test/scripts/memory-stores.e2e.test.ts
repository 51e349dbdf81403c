/**
 * A seat's counterparty profiles and learned skills last as long as their stores keep them, past the 30-day
 * event history that announced them: a node that starts with a stored profile and skill but no
 * `counterparty_profile_updated` or `skill_synthesized` event shows them in `/agents/{id}/memory`.
 */
import t from 'tap';
import { Buckets } from '../../bus/index.js';
import { stoppedNodeWithAda } from '../harness/stopped-node.js';

const profile = {
  subject_label: 'Grace Hopper',
  subject_handle: 'grace',
  subject_external_id: 'U0GRACE',
  subject_platform: 'chat',
  subject_name: 'Grace Hopper',
  traits: { tone: 'direct' },
  interaction_count: 4,
  first_seen_at: '2026-01-02T03:04:05Z',
  last_updated_at: '2026-02-03T04:05:06Z',
  last_corroborated_at: null,
};

const skill = {
  id: 'sk-1',
  name: 'release notes',
  description: 'Write the release notes',
  content: 'Gather merged changes, then group them.',
  tool_sequence: ['work_search'],
  version: 3,
  created_at: '2026-01-02T03:04:05Z',
  updated_at: '2026-02-03T04:05:06Z',
};

t.test(
  'a profile and a skill older than the event history are still in the memory view after a restart',
  async (t) => {
    const stopped = await stoppedNodeWithAda(t);
    const first = stopped.node;
    const { bus } = await stopped.openStore();
    const kv = await bus.kv({ name: Buckets.Counterparty, history: 1 });
    const stored = { profile, episode: 'ep-1', asked_at: null, held: [] };
    await kv.put(`${stopped.agentId}.0123abcd`, new TextEncoder().encode(JSON.stringify(stored)));
    const skills = await bus.kv({ name: Buckets.ToolSkills, history: 2 });
    await skills.put(
      `learned.${stopped.agentId}`,
      new TextEncoder().encode(JSON.stringify({ skills: [skill] })),
    );
    await bus.close();

    const second = await stopped.restart();
    const memory = (await (await fetch(`${first.url}/agents/ada/memory`)).json()) as Record<string, unknown>;
    t.same(memory['counterparty_profiles'], [profile]);
    t.same(memory['synthesized_skills'], [skill]);
    second.kill('SIGTERM');
    t.equal(await second.exited, 0);
  },
);
