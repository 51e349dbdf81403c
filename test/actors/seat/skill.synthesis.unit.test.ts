/**
 * Skill synthesis, the pure part: which episodes are worth asking about, how the model's answer is read,
 * and how a written skill joins the seat's learned set (new, refined to a higher version, or left).
 */
import t from 'tap';
import {
  LEARNED_PER_SEAT,
  learn,
  readSynthesis,
  worthSynthesis,
} from '../../../actors/seat/skill.synthesis.js';
import { anEpisode } from './episode.fixture.js';
import { SKILL_SET_BYTES_MAX } from '../../../schema/index.js';

const episode = anEpisode;

t.test('only an episode reviewed as done in two or more tool calls is worth asking about', async (t) => {
  t.ok(worthSynthesis(episode()));
  t.ok(worthSynthesis(episode({ review_outcome: 'passed_after_revision' })));
  t.notOk(worthSynthesis(episode({ review_outcome: 'failed' })));
  t.notOk(worthSynthesis(episode({ review_outcome: null })));
  t.notOk(worthSynthesis(episode({ tool_sequence: ['files_build'] })));
});

t.test('the answer: a skill, none, or not the JSON asked for', async (t) => {
  t.same(
    readSynthesis(
      'Here: {"skill": {"name": " Ship a site ", "description": "when deploying", "content": "1. build"}}',
    ),
    {
      name: 'Ship a site',
      description: 'when deploying',
      content: '1. build',
    },
  );
  t.equal(readSynthesis('{"skill": null}'), null);
  t.equal(readSynthesis('no JSON at all'), undefined);
  t.equal(
    readSynthesis('{"skill": {"name": "", "description": "", "content": "x"}}'),
    undefined,
    'an empty name',
  );
  t.equal(readSynthesis('{"skill": {"name": "x"'), undefined, 'cut short');
});

t.test(
  'a new name is version 1; refinement rewrites it as version 2; without refinement it stands',
  async (t) => {
    const now = new Date('2026-12-02T10:00:00Z');
    const first = learn([], { name: 'Ship a site', description: 'd', content: 'v1' }, { agentId: 'a', toolSequence: ['x'], refine: false, now }); // prettier-ignore
    t.match(first.recorded, {
      name: 'Ship a site',
      version: 1,
      content: 'v1',
      created_at: now.toISOString(),
    });
    const later = new Date('2026-12-03T10:00:00Z');
    const kept = learn(first.skills, { name: 'ship a SITE', description: 'd', content: 'v2' }, { agentId: 'a', toolSequence: ['x'], refine: false, now: later }); // prettier-ignore
    t.equal(kept.recorded, null);
    const refined = learn(first.skills, { name: 'ship a SITE', description: 'd', content: 'v2' }, { agentId: 'a', toolSequence: ['y'], refine: true, now: later }); // prettier-ignore
    t.match(refined.recorded, {
      id: first.recorded?.id,
      name: 'Ship a site',
      version: 2,
      content: 'v2',
      created_at: now.toISOString(),
      updated_at: later.toISOString(),
      tool_sequence: ['y'],
    });
    t.equal(refined.skills.length, 1);
    const same = learn(refined.skills, { name: 'Ship a site', description: 'd', content: 'v2' }, { agentId: 'a', toolSequence: ['y'], refine: true, now: later }); // prettier-ignore
    t.equal(same.recorded, null, 'nothing changed: no new version');
  },
);

t.test('a seat keeps its most recently updated learned skills', async (t) => {
  let skills = [] as ReturnType<typeof learn>['skills'];
  for (let i = 0; i <= LEARNED_PER_SEAT; i++)
    skills = learn(skills, { name: `Skill ${i}`, description: '', content: 'c' }, { agentId: 'a', toolSequence: [], refine: false, now: new Date(Date.UTC(2026, 0, 1, 0, i)) }).skills; // prettier-ignore
  t.equal(skills.length, LEARNED_PER_SEAT);
  t.notOk(skills.some((s) => s.name === 'Skill 0'));
});

t.test('a seat’s learned set fits one bucket value whatever script its skills are in', async (t) => {
  let skills = [] as ReturnType<typeof learn>['skills'];
  for (let i = 0; i < LEARNED_PER_SEAT; i++)
    skills = learn(skills, { name: `技能 ${i}`, description: '', content: '手順'.repeat(4_000) }, { agentId: 'a', toolSequence: [], refine: false, now: new Date(Date.UTC(2026, 0, 1, 0, i)) }).skills; // prettier-ignore
  const bytes = Buffer.byteLength(JSON.stringify({ skills }));
  t.ok(bytes <= SKILL_SET_BYTES_MAX, `${bytes} bytes`);
  t.equal(skills[0]?.name, `技能 ${LEARNED_PER_SEAT - 1}`, 'the newest kept');
});
