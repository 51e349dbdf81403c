import t from 'tap';
import { ReadModels } from '../../../projections/index.js';
import { applyMemoryEvent, emptyMemoryState } from '../../../projections/memory/memory.projection.js';
import { companyDoc, event } from '../fixtures/readmodels.js';

const now = Date.parse('2026-11-23T12:00:00Z');
function models(): ReadModels {
  const m = new ReadModels({ now: () => now });
  m.setCompany(companyDoc, 'rev');
  return m;
}

const episode = (id: string, ended: string) => ({
  id,
  task_summary: `task ${id}`,
  plan_summary: 'plan',
  tool_sequence: ['read_file'],
  skills_used: [],
  review_outcome: 'passed',
  started_at: ended,
  ended_at: ended,
  duration_ms: 10,
  task_id: null,
  turn_id: `turn-${id}`,
  ask: `the complete ask of ${id}`,
  account: `the complete account of ${id}`,
});

t.test('episodes: at most 50, newest ended_at first, list rows without ask and account', async (t) => {
  const m = models();
  for (let i = 0; i < 60; i += 1) {
    const ended = new Date(Date.parse('2026-11-20T00:00:00Z') + ((i * 37) % 60) * 60_000).toISOString();
    m.applyEvent(event('episode_recorded', 'cto', episode(`e${(i * 37) % 60}`, ended), ended));
  }
  const view = (await m.memoryOf('cto'))!;
  t.equal(view.episodes.length, 50);
  t.same(
    view.episodes.slice(0, 3).map((e) => e.id),
    ['e59', 'e58', 'e57'],
  );
  t.notOk('ask' in view.episodes[0]!);
  t.match(m.episode('cto', 'e3'), { ask: 'the complete ask of e3', account: 'the complete account of e3' });
  t.equal(m.episode('cto', 'nope'), null);
  t.equal(m.episode('nobody', 'e3'), undefined);
});

t.test('the lifecycle: a compaction replaces its members, a prune removes, neither comes back', async (t) => {
  const m = models();
  const at = (min: number) => new Date(Date.parse('2026-11-20T00:00:00Z') + min * 60_000).toISOString();
  for (const [i, id] of ['a', 'b', 'c', 'd'].entries())
    m.applyEvent(event('episode_recorded', 'cto', episode(id, at(i)), at(i)));
  m.applyEvent(event('episodes_compacted', 'cto', { episode: episode('k', at(2)), members: ['a', 'b', 'c'], cluster: 'passed:read_file' }, at(10))); // prettier-ignore
  m.applyEvent(event('episodes_pruned', 'cto', { ids: ['d'], reason: 'cap' }, at(11)));
  // A summary rewritten later for a member must not bring it back.
  m.applyEvent(event('episode_recorded', 'cto', episode('b', at(1)), at(12)));
  t.same(
    (await m.memoryOf('cto'))!.episodes.map((e) => e.id),
    ['k'],
  );
  t.equal(m.episode('cto', 'b'), null, 'the member is gone from the episode route too');
  m.applyEvent(event('episodes_pruned', 'cto', { ids: ['k'], reason: 'compacted_age' }, at(13)));
  t.same((await m.memoryOf('cto'))!.episodes, []);
});

t.test(
  'an episode recorded again keeps its newest record: an older one arriving late does not replace it',
  async (t) => {
    const m = models();
    const ended = '2026-11-20T00:00:00Z';
    // Reflection re-records a turn's episode with its summary; the turn's own record, stamped earlier, comes late.
    const summarized = { ...episode('e1', ended), task_summary: 'summarized' };
    m.applyEvent(event('episode_recorded', 'cto', summarized, '2026-11-20T00:05:00Z'));
    m.applyEvent(event('episode_recorded', 'cto', episode('e1', ended), '2026-11-20T00:00:01Z'));
    t.same(
      (await m.memoryOf('cto'))!.episodes.map((e) => e.task_summary),
      ['summarized'],
    );
    t.match(m.episode('cto', 'e1'), { task_summary: 'summarized' });
    // A newer record still replaces it; so does one at the same instant (the later in stream order).
    m.applyEvent(
      event('episode_recorded', 'cto', { ...summarized, task_summary: 'again' }, '2026-11-20T00:05:00Z'),
    );
    t.match(m.episode('cto', 'e1'), { task_summary: 'again' });
  },
);

t.test(
  'personal memories: long and short with ttl_until; short rows say whether they expired; forget wins by instant',
  async (t) => {
    const m = models();
    const remember = (id: string, term: string, ttl: string | null, at: string) =>
      m.applyEvent(
        event(
          'memory_remembered',
          'cto',
          { memory_id: id, kind: term, ttl_until: ttl, content_chars: 7, turn_id: 'turn-1' },
          at,
        ),
      );
    remember('l1', 'long', null, '2026-11-23T10:00:00Z');
    remember('s1', 'short', '2026-11-23T11:00:00Z', '2026-11-23T10:00:00Z');
    remember('s2', 'short', '2026-11-24T11:00:00+01:00', '2026-11-23T10:01:00Z');
    remember('gone', 'long', null, '2026-11-23T10:05:00Z');
    m.applyEvent(event('memory_forgotten', 'cto', { memory_id: 'gone' }, '2026-11-23T10:06:00Z'));
    // A remember older than the forget, arriving late, does not bring it back.
    remember('gone', 'long', null, '2026-11-23T10:05:30Z');
    const view = (await m.memoryOf('cto'))!;
    t.same(view.personal_memories.long, [
      { id: 'l1', content: '', metadata: { content_chars: 7, turn_id: 'turn-1' }, ttl_until: null },
    ]);
    t.same(
      view.personal_memories.short.map((r) => [r.id, 'expired' in r && r.expired]),
      [
        ['s2', false],
        ['s1', true],
      ],
    );
    t.equal(view.handle, 'cto');
    t.equal(view.role, 'CTO');
    t.equal(view.runtime_id, view.agent_id);
  },
);

t.test(
  'with a memory store the rows carry content; a failing store degrades that section alone',
  async (t) => {
    const asked: string[] = [];
    let fail = false;
    const m = new ReadModels({
      now: () => now,
      memoryStore: {
        recall: async (agentId, query) => {
          asked.push(`${agentId}:${query.include_expired}`);
          if (fail) throw new Error('store down');
          return [
            { id: 'a', kind: 'long', content: 'likes tea', metadata: {}, ttl_until: null },
            { id: 'b', kind: 'short', content: 'call back', metadata: {}, ttl_until: '2026-11-23T11:59:00Z' },
          ];
        },
      },
    });
    m.setCompany(companyDoc, 'rev');
    m.applyEvent(
      event('episode_recorded', 'cto', episode('e1', '2026-11-23T09:00:00Z'), '2026-11-23T09:00:00Z'),
    );
    const view = (await m.memoryOf('cto'))!;
    t.same(view.personal_memories.long, [{ id: 'a', content: 'likes tea', metadata: {}, ttl_until: null }]);
    t.match(view.personal_memories.short, [{ id: 'b', content: 'call back', expired: true }]);
    t.same(asked, [`${view.agent_id}:true`], 'asked by durable agent id, expired rows included');
    fail = true;
    const degraded = (await m.memoryOf('cto'))!;
    t.same(degraded.personal_memories, { long: [], short: [] });
    t.equal(degraded.episodes.length, 1, 'episodes still answer');
  },
);

t.test(
  'counterparty profiles by last_updated_at descending; sections are empty lists when nothing is known',
  async (t) => {
    const m = models();
    const profile = (label: string, updated: string) => ({
      subject_label: label,
      subject_handle: null,
      subject_external_id: label,
      subject_platform: 'chat',
      subject_name: null,
      traits: {},
      interaction_count: 1,
      first_seen_at: '2026-11-01T00:00:00Z',
      last_updated_at: updated,
      last_corroborated_at: null,
    });
    m.applyEvent(
      event(
        'counterparty_profile_updated',
        'cto',
        profile('a', '2026-11-20T00:00:00Z'),
        '2026-11-20T00:00:00Z',
      ),
    );
    m.applyEvent(
      event(
        'counterparty_profile_updated',
        'cto',
        profile('b', '2026-11-21T01:00:00+14:00'),
        '2026-11-21T00:00:00Z',
      ),
    );
    m.applyEvent(
      event(
        'counterparty_profile_updated',
        'cto',
        profile('c', '2026-11-20T12:00:00Z'),
        '2026-11-20T12:00:00Z',
      ),
    );
    t.same(
      (await m.memoryOf('cto'))!.counterparty_profiles.map((p) => p.subject_label),
      ['c', 'b', 'a'],
    );
    const empty = (await m.memoryOf('ceo'))!;
    t.same(
      [
        empty.episodes,
        empty.personal_memories.long,
        empty.personal_memories.short,
        empty.counterparty_profiles,
        empty.synthesized_skills,
      ],
      [[], [], [], [], []],
    );
    t.equal(await m.memoryOf('dana'), null, 'a human seat has no memory');
  },
);

const run = (id: string, status: string, started: string) => ({
  turn_id: 'turn-1',
  role: 'Dev One',
  agent_handle: 'dev-one',
  agent_id: 'x',
  coding_agent: 'coder',
  sandbox_id: id,
  task: 'fix',
  status,
  started_at: started,
  question: null,
  audience: null,
  work_item: null,
  owner: null,
  paused_at: null,
});

t.test(
  'sandbox runs: newest event per run wins by instant; the live section holds unfinished runs',
  async (t) => {
    const m = models();
    const section = m.sections().find((s) => s.name === 'sandboxes')!;
    let pushes = 0;
    section.subscribe(() => (pushes += 1));
    m.applyEvent(
      event(
        'sandbox_run_started',
        undefined,
        run('sb1', 'running', '2026-11-23T09:00:00Z'),
        '2026-11-23T09:00:00Z',
      ),
    );
    m.applyEvent(
      event(
        'sandbox_run_started',
        undefined,
        run('sb2', 'running', '2026-11-23T10:00:00Z'),
        '2026-11-23T10:00:00Z',
      ),
    );
    m.applyEvent(
      event(
        'sandbox_run_completed',
        undefined,
        run('sb1', 'done', '2026-11-23T09:00:00Z'),
        '2026-11-23T11:00:00Z',
      ),
    );
    // A late "updated" from before the completion does not revive it.
    m.applyEvent(
      event(
        'sandbox_run_updated',
        undefined,
        run('sb1', 'awaiting_clarification', '2026-11-23T09:00:00Z'),
        '2026-11-23T11:30:00+01:00',
      ),
    );
    t.same(
      m.sandboxRuns().runs.map((r) => [r.sandbox_id, r.status]),
      [
        ['sb2', 'running'],
        ['sb1', 'done'],
      ],
    );
    t.same(
      (section.current() as Array<{ sandbox_id: string }>).map((r) => r.sandbox_id),
      ['sb2'],
    );
    t.equal(pushes, 3, 'pushed only when the live set changed');
    m.reconcileSandboxes([
      run('sb2', 'running', '2026-11-23T10:00:00Z'),
      run('sb1', 'done', '2026-11-23T09:00:00Z'),
    ]);
    t.equal(pushes, 3, 'a reconcile that changes nothing live pushes nothing');
    m.reconcileSandboxes([]);
    t.equal(pushes, 4);
  },
);

t.test(
  'a seat keeps its newest 500 memories and 1,000 forget tombstones, however many it wrote',
  async (t) => {
    const state = emptyMemoryState();
    const at = (i: number) => new Date(Date.parse('2026-11-01T00:00:00Z') + i * 1000).toISOString();
    for (let i = 0; i < 600; i += 1)
      applyMemoryEvent(
        state,
        event(
          'memory_remembered',
          'cto',
          { memory_id: `m${i}`, kind: 'long', ttl_until: null, content_chars: 1, turn_id: 't' },
          at(i),
        ),
      );
    const seat = state.seats.get('cto')!;
    t.equal(seat.memories.size, 500);
    t.ok(seat.memories.has('m599') && seat.memories.has('m100'), 'the newest stay');
    t.notOk(seat.memories.has('m99'), 'the oldest went');
    for (let i = 0; i < 1_200; i += 1)
      applyMemoryEvent(state, event('memory_forgotten', 'cto', { memory_id: `f${i}` }, at(1_000 + i)));
    t.equal(seat.forgotten.size, 1_000);
    t.ok(seat.forgotten.has('f1199') && !seat.forgotten.has('f199'));
  },
);
