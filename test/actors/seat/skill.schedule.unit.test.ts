/**
 * Scheduled skill synthesis, pure parts: which episodes wait (done, with tools, too small alone), the backlog
 * (once per id, the newest kept), when a pass is due (enough waiting, the interval past), the batch request
 * and the tool sequence a batch's skill is recorded with.
 */
import t from 'tap';
import {
  addToBacklog,
  BACKLOG_MAX,
  BATCH_MIN,
  batchRequest,
  commonSequence,
  emptyBacklog,
  passDue,
  SCHEDULE_EVERY_MS,
  waitsForSchedule,
} from '../../../actors/seat/skill.schedule.js';
import type { Episode } from '../../../actors/seat/turn.episode.js';
import { anEpisode } from './episode.fixture.js';

const episode = (id: string, over: Partial<Episode> = {}): Episode =>
  anEpisode({ id, task_summary: `task ${id}`, plan_summary: 'echo it', tool_sequence: ['files_echo'], turn_id: `turn-${id}`, ask: `Echo ${id}`, account: 'Echoed.', ...over }); // prettier-ignore

t.test('episodes done in one tool call wait; failed, tool-less and larger ones do not', async (t) => {
  t.ok(waitsForSchedule(episode('a')));
  t.notOk(waitsForSchedule(episode('b', { review_outcome: 'failed' })));
  t.notOk(waitsForSchedule(episode('c', { review_outcome: null })), 'a direct delivery was not reviewed');
  t.notOk(waitsForSchedule(episode('d', { tool_sequence: [] })));
  t.notOk(
    waitsForSchedule(episode('e', { tool_sequence: ['files_echo', 'files_echo'] })),
    'synthesised alone',
  );
});

t.test('the backlog holds each episode once, the newest kept', async (t) => {
  let backlog = addToBacklog(emptyBacklog(), episode('a'));
  t.equal(addToBacklog(backlog, episode('a')), backlog, 'a repeat changes nothing');
  for (let i = 0; i < BACKLOG_MAX + 3; i++) backlog = addToBacklog(backlog, episode(`n${i}`));
  t.equal(backlog.episodes.length, BACKLOG_MAX);
  t.equal(backlog.episodes.at(-1)?.id, `n${BACKLOG_MAX + 2}`);
  t.match(backlog.episodes[0], {
    task: String,
    plan: 'echo it',
    tool_sequence: ['files_echo'],
    account: 'Echoed.',
  });
});

t.test('a pass is due once enough episodes wait and the interval has passed', async (t) => {
  const now = new Date('2026-12-02T12:00:00Z');
  let backlog = emptyBacklog();
  for (let i = 1; i < BATCH_MIN; i++) backlog = addToBacklog(backlog, episode(`e${i}`));
  t.notOk(passDue(backlog, now), `${BATCH_MIN - 1} are too few`);
  backlog = addToBacklog(backlog, episode('last'));
  t.ok(passDue(backlog, now), 'never run before');
  const recent = new Date(now.getTime() - SCHEDULE_EVERY_MS + 1000).toISOString();
  t.notOk(passDue({ ...backlog, last_run: recent }, now));
  const old = new Date(now.getTime() - SCHEDULE_EVERY_MS).toISOString();
  t.ok(passDue({ ...backlog, last_run: old }, now));
});

t.test('the batch request lists every task; its skill takes the most common tools', async (t) => {
  let backlog = emptyBacklog();
  for (const id of ['a', 'b', 'c']) backlog = addToBacklog(backlog, episode(id));
  backlog = addToBacklog(backlog, episode('d', { tool_sequence: ['files_read'] }));
  const text = JSON.stringify(batchRequest(backlog.episodes, []));
  t.match(text, /### Task 1\\nAsked: Echo a/);
  t.match(text, /### Task 4\\nAsked: Echo d/);
  t.match(text, /Known skills:\\n\(none yet\)/);
  t.same(commonSequence(backlog.episodes), ['files_echo']);
  t.same(commonSequence([]), []);
});
