/**
 * Reflection, pure parts: the request asks for summaries only with `summarize_episodes`, the answer is read
 * leniently and bounded, the lesson becomes a tagged long memory row, and only summaries that differ make a
 * new episode record.
 */
import t from 'tap';
import {
  LESSON_MAX,
  lessonRow,
  readReflection,
  reflectionRequest,
  summarizedEpisode,
} from '../../../actors/seat/reflection.js';
import { anEpisode } from './episode.fixture.js';

const episode = anEpisode({
  id: '6f1c2b1e-8d3a-5c1e-9a4b-2f0e1d3c4b5a',
  task_summary: 'Item 7: when does it ship?',
  plan_summary: 'answer',
  tool_sequence: ['tracker_get'],
  ask: 'Item 7: when does it ship?',
  account: 'Read the item; told Grace Friday.',
});

t.test('summaries are asked for only with summarize_episodes', async (t) => {
  const plain = JSON.stringify(reflectionRequest(episode, false));
  const summarize = JSON.stringify(reflectionRequest(episode, true));
  t.notMatch(plain, /task_summary/);
  t.match(summarize, /task_summary/);
  t.match(plain, /Tools called, in order: tracker_get/);
  t.match(plain, /Outcome \(passed_first\): Read the item/);
});

t.test('the answer is read leniently, bounded, and summaries kept only when asked', async (t) => {
  t.same(readReflection('Here: {"lesson": "  Check the release calendar first. "}', false), {
    lesson: 'Check the release calendar first.',
  });
  t.same(readReflection('{"lesson": null, "task_summary": "When item 7 ships"}', false), { lesson: null });
  t.same(
    readReflection('{"lesson": "", "task_summary": "When item 7 ships", "plan_summary": "Read it"}', true),
    {
      lesson: null,
      task_summary: 'When item 7 ships',
      plan_summary: 'Read it',
    },
  );
  t.equal(readReflection('{"lesson": 3}', false), undefined);
  t.equal(readReflection('no JSON', false), undefined);
  t.equal(readReflection(JSON.stringify({ lesson: 'x'.repeat(5_000) }), false)?.lesson?.length, LESSON_MAX);
});

t.test('a lesson is a long memory row tagged with its episode', async (t) => {
  const row = lessonRow(episode, 'Check the release calendar first.', new Date('2026-12-01T10:00:06Z'));
  t.same(row, {
    id: `reflection-${episode.id}`,
    kind: 'long',
    content: 'Check the release calendar first.',
    metadata: {
      source: 'reflection',
      episode_id: episode.id,
      task: episode.task_summary,
      outcome: 'passed_first',
    },
    ttl_until: null,
    created_at: '2026-12-01T10:00:06.000Z',
  });
});

t.test('only summaries that differ make a new episode record', async (t) => {
  t.equal(summarizedEpisode(episode, { lesson: null }), null);
  t.equal(summarizedEpisode(episode, { lesson: null, task_summary: episode.task_summary }), null);
  t.match(summarizedEpisode(episode, { lesson: null, plan_summary: 'Read the item, answered Friday' }), {
    id: episode.id,
    task_summary: episode.task_summary,
    plan_summary: 'Read the item, answered Friday',
    account: episode.account,
  });
});
