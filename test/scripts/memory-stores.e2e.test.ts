/**
 * A seat's counterparty profiles and learned skills last as long as their stores keep them, past the 30-day
 * event history that announced them: a node that starts with a stored profile and skill but no
 * `counterparty_profile_updated` or `skill_synthesized` event shows them in `/agents/{id}/memory`.
 */
import { join } from 'node:path';
import t from 'tap';
import { Buckets, ensureCatalogue, openMemoryBus } from '../../bus/index.js';
import { runSvc } from '../harness/child.js';
import { startNode, TOKEN } from '../harness/serve-node.js';

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
    const first = await startNode(t);
    const put = await fetch(`${first.url}/config`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'x-summary': 'ada' },
      body: JSON.stringify({ name: 'Acme', timezone: 'UTC', roles: [{ name: 'Ada', handle: 'ada' }] }),
    });
    t.equal(put.status, 201);
    await first.run.waitForLog((line) => line.msg === 'config applied');
    const [ada] = (await (await fetch(`${first.url}/agents`)).json()) as Array<{ agent_id: string }>;
    first.run.kill('SIGTERM');
    t.equal(await first.run.exited, 0);

    const bus = await openMemoryBus({ storeDir: join(first.dir, 'data') });
    await ensureCatalogue(bus);
    const kv = await bus.kv({ name: Buckets.Counterparty, history: 1 });
    const stored = { profile, episode: 'ep-1', asked_at: null, held: [] };
    await kv.put(`${ada!.agent_id}.0123abcd`, new TextEncoder().encode(JSON.stringify(stored)));
    const skills = await bus.kv({ name: Buckets.ToolSkills, history: 2 });
    await skills.put(
      `learned.${ada!.agent_id}`,
      new TextEncoder().encode(JSON.stringify({ skills: [skill] })),
    );
    await bus.close();

    const second = runSvc(['serve', '--config', first.configFile], { SVC_TOKEN: TOKEN });
    t.teardown(() => second.kill('SIGKILL'));
    await second.waitForLog((line) => line.msg === 'node serving');
    const memory = (await (await fetch(`${first.url}/agents/ada/memory`)).json()) as Record<string, unknown>;
    t.same(memory['counterparty_profiles'], [profile]);
    t.same(memory['synthesized_skills'], [skill]);
    second.kill('SIGTERM');
    t.equal(await second.exited, 0);
  },
);
