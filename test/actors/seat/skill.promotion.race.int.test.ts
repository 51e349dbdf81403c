/**
 * Skill promotion from seats that write the promoted set at once (as seats on different nodes do): each loses
 * or wins the compare-and-set, reads the set again on a loss, and every promotion lands.
 */
import pino from 'pino';
import t from 'tap';
import { readPromoted } from '../../../actors/index.js';
import type { LearnedSkill } from '../../../actors/skills/index.js';
import { countSkillUses } from '../../../actors/seat/skill.promotion.host.js';
import type { SeatProfile } from '../../../actors/seat/seat.profile.js';
import { anEpisode } from './episode.fixture.js';
import { Buckets, openMemoryBus } from '../../../bus/index.js';
import { agentId } from '../../../schema/index.js';

const learned = (name: string): LearnedSkill => ({
  id: `id-${name}`,
  name,
  description: `when ${name}`,
  content: `1. ${name}`,
  tool_sequence: [],
  version: 1,
  created_at: '2026-12-01T10:00:00.000Z',
  updated_at: '2026-12-01T10:00:00.000Z',
});

const episode = (name: string) =>
  anEpisode({
    id: `episode-${name}`,
    tool_sequence: ['skill_read'],
    skills_used: [name],
    turn_id: `turn-${name}`,
  });

t.test('seats promoting at once each land their skill in the promoted set', async (t) => {
  const bus = await openMemoryBus({});
  t.teardown(() => bus.close());
  const kv = await bus.kv({ name: Buckets.ToolSkills, history: 2 });
  const handles = ['ada', 'bob', 'cy', 'dee'];
  const events: string[] = [];
  for (const handle of handles) {
    const id = agentId('Acme', handle);
    const skill = learned(`${handle} skill`);
    await kv.put(`learned.${id}`, new TextEncoder().encode(JSON.stringify({ skills: [skill] })));
    // One use counted already: the next done turn that reads it promotes it.
    await kv.put(
      `uses.${id}`,
      new TextEncoder().encode(JSON.stringify({ [skill.id]: { uses: 1, promoted: 0 } })),
    );
  }
  const deps = {
    skills: kv,
    logger: pino({ level: 'silent' }),
    now: () => new Date('2026-12-02T10:00:00Z'),
    publish: (type: string, _payload: Record<string, unknown>, id: string) => Promise.resolve(void events.push(`${type} ${id}`)), // prettier-ignore
  };
  await Promise.all(
    handles.map((handle) =>
      countSkillUses(deps, {
        seat: { handle, agent_id: agentId('Acme', handle) } as SeatProfile,
        episode: episode(`${handle} skill`),
        trace_id: 'trace',
      }),
    ),
  );
  const promoted = (await readPromoted(kv)).skills;
  t.same(promoted.map((s) => s.from).sort(), handles);
  t.equal(events.length, handles.length, 'one skill_promoted each');
});
