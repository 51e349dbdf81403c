/**
 * The episode lifecycle in a seat (`learning.episode_lifecycle`): each recorded episode joins the seat's
 * ledger in `svc_episodes` and the pass runs after it, so a cap prunes the oldest at once, similar episodes
 * that aged past `compaction_min_age_days` merge into one, and reflection marks its episode consolidated.
 */
import t from 'tap';
import { Buckets } from '../../../bus/index.js';
import { agentId, Payloads } from '../../../schema/index.js';
import { Ledger } from '../../../actors/seat/episode.lifecycle.js';
import type { Step } from '../../fixtures/llm/script.js';
import { startCompany, type Harness } from './harness.js';

const usage = { prompt_tokens: 10, completion_tokens: 5 };
const turn: Step[] = [
  { kind: 'text', text: '{"decision":"plan","steps":["answer"],"tools":[]}', usage },
  { kind: 'text', text: 'Answered.', usage },
  { kind: 'text', text: '{"verdict":"done","notes":"ok"}', usage },
];
const DAY = 24 * 3600 * 1000;

async function episodeIds(h: Harness): Promise<string[]> {
  return (await h.events('episode_recorded')).map((e) => Payloads.EpisodeRecorded.parse(e.payload).id);
}

/** Waits for the episode of the turn the wake `summary` started. */
const recorded = (h: Harness, summary: string) =>
  h.waitFor((e) => e.type === 'episode_recorded' && (e.payload as { task_summary?: unknown }).task_summary === summary); // prettier-ignore

async function ledgerOf(h: Harness): Promise<Ledger> {
  const kv = await h.bus.kv({ name: Buckets.Episodes, history: 1 });
  const entry = await kv.get(agentId('Acme', 'ada'));
  return Ledger.parse(JSON.parse(new TextDecoder().decode(entry!.value)));
}

t.test('past max_raw_episodes_per_agent the oldest episode leaves as the next one is recorded', async (t) => {
  const h = await startCompany(t, {
    episodes: true,
    extra: { learning: { episode_lifecycle: { max_raw_episodes_per_agent: 2 } } },
    script: [...turn, ...turn, ...turn],
  });
  for (const id of ['wake-1', 'wake-2']) {
    await h.wake('ada', id, `Question ${id}`);
    await recorded(h, `Question ${id}`);
  }
  await h.wake('ada', 'wake-3', 'Question wake-3');
  const pruned = await h.waitFor((e) => e.type === 'episodes_pruned');
  const ids = await episodeIds(h);
  t.equal(ids.length, 3);
  t.same(Payloads.EpisodesPruned.parse(pruned.payload), { ids: [ids[0]], reason: 'cap' });
  t.equal(pruned.category, 'learning');
  t.equal(pruned.agent_id, 'ada');
  await h.stopSeats();
  t.same(
    (await ledgerOf(h)).raw.map((e) => e.id),
    ids.slice(1),
    'the ledger holds the two newest',
  );
});

t.test('similar episodes past compaction_min_age_days merge into one compacted episode', async (t) => {
  let now = Date.parse('2026-03-02T09:00:00.000Z');
  const h = await startCompany(t, {
    episodes: true,
    now: () => new Date(now),
    extra: {
      learning: { episode_lifecycle: { compaction_min_age_days: 7, compaction_min_cluster_size: 3 } },
    },
    script: [...turn, ...turn, ...turn, ...turn],
  });
  for (const id of ['wake-1', 'wake-2', 'wake-3']) {
    await h.wake('ada', id, `Question ${id}`);
    await recorded(h, `Question ${id}`);
    now += 60_000;
  }
  t.same(await h.events('episodes_compacted'), [], 'none old enough yet');
  now += 8 * DAY;
  await h.wake('ada', 'wake-4', 'Question wake-4');
  const compacted = Payloads.EpisodesCompacted.parse((await h.waitFor((e) => e.type === 'episodes_compacted')).payload); // prettier-ignore
  const ids = await episodeIds(h);
  t.same(compacted.members, ids.slice(0, 3), 'the three old ones, oldest first');
  t.equal(compacted.cluster, 'passed:(no tools)');
  t.match(compacted.episode, {
    task_summary: '3 similar tasks: Question wake-3; Question wake-2; Question wake-1',
    review_outcome: 'passed_first',
    turn_id: null,
  });
  await h.stopSeats();
  const ledger = await ledgerOf(h);
  t.same(
    ledger.raw.map((e) => e.id),
    [ids[3]],
    'the new one stays raw',
  );
  t.same(
    ledger.compacted.map((c) => c.episode.id),
    [compacted.episode.id],
  );
});

t.test('reflection marks its episode consolidated in the event history and the ledger', async (t) => {
  const reflected: Step = { kind: 'text', text: JSON.stringify({ lesson: 'Answer briefly.' }), usage };
  const h = await startCompany(t, {
    episodes: true,
    reflection: true,
    extra: { learning: { reflect: { enabled: true } } },
    script: [...turn, reflected],
  });
  await h.wake('ada', 'wake-1', 'Question one');
  const consolidated = Payloads.EpisodeConsolidated.parse((await h.waitFor((e) => e.type === 'episode_consolidated')).payload); // prettier-ignore
  const [id] = await episodeIds(h);
  t.match(consolidated, { id, lesson_id: `reflection-${id}`, consolidated_at: String });
  await h.stopSeats();
  t.match((await ledgerOf(h)).raw, [{ id, consolidated_at: consolidated.consolidated_at }]);
});

t.test('a seat that does not learn keeps no ledger', async (t) => {
  const h = await startCompany(t, {
    episodes: true,
    extra: { learning: { enabled: false } },
    script: [...turn],
  });
  await h.wake('ada', 'wake-1', 'Question one');
  await h.waitFor((e) => e.type === 'agent_turn_completed');
  await h.stopSeats();
  const kv = await h.bus.kv({ name: Buckets.Episodes, history: 1 });
  t.equal(await kv.get(agentId('Acme', 'ada')), null);
  t.same(await h.events('episode_recorded'), []);
});
