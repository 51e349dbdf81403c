/**
 * Learning inside `svc serve` (on JetStream, so the test can wake a seat on the node's own inbox): with
 * `learning.counterparty` and `learning.reflect` on, a turn woken by a person's delivery leaves a profile of
 * them, a lesson in the seat's personal memory and a summarised episode, all shown by the memory view; with
 * `learning.episode_lifecycle.max_raw_episodes_per_agent: 1` the next episode prunes that one from the view.
 */
import t from 'tap';
import { startLlmServer } from '../fixtures/llm/llm-server.js';
import { startBusNode } from '../harness/bus-node.js';
import { until } from '../harness/until.js';
import { mentionWake, notificationFrom, queueWake } from '../harness/wake.js';
import { dashboard, type Frame } from '../http/fixtures/events-node.js';
import { plainTurns, profiled, putLearningCompany, usage } from './fixtures/learning-company.js';

t.test(
  'a served seat profiles the person who woke it and learns a lesson; the memory view shows both',
  async (t) => {
    // The two learning calls after the turn run side by side: each is answered by what it asks.
    const turn = plainTurns('Told Grace it ships on Friday.');
    let turnCalls = 0;
    const llm = await startLlmServer({
      wire: 'openai',
      script: (request) => {
        const asked = JSON.stringify(request.body);
        if (asked.includes('profile of a person')) return profiled('release manager');
        if (asked.includes('learn from the task'))
          return {
            kind: 'text',
            text: JSON.stringify({
              lesson: 'Check the release calendar first.',
              task_summary: asked.includes('Item 8') ? 'Whether item 8 is done' : 'When item 7 ships',
            }),
            usage,
          };
        return turn[turnCalls++] ?? { kind: 'status', status: 500 };
      },
    });
    t.teardown(() => llm.close());
    const { node, bus } = await startBusNode(t);
    const d = await dashboard(`${node.url.replace('http', 'ws')}/ws/stream`);
    t.teardown(() => d.client.close());
    const frame = (match: (f: Frame) => boolean): Promise<Frame> =>
      Promise.resolve(d.frames.find(match) ?? d.next(match));

    const put = await putLearningCompany(node.url, llm.baseUrl, 'profiles', {
      reflect: { enabled: true, summarize_episodes: true },
      episode_lifecycle: { max_raw_episodes_per_agent: 1 },
    });
    t.equal(put, 201);
    await node.run.waitForLog((l) => l.msg === 'config applied');

    const grace = notificationFrom({ id: 'u-42', login: 'grace', name: 'Grace Hopper' });
    await queueWake(
      bus,
      'ada',
      mentionWake('Item 7: when does it ship?', { payload: { notification: grace } }),
    );
    await frame((f) => f.kind === 'event' && f.data?.type === 'counterparty_profile_updated');
    await frame((f) => f.kind === 'event' && f.data?.type === 'memory_remembered');
    await frame(
      (f) =>
        f.kind === 'event' &&
        f.data?.type === 'episode_recorded' &&
        String(f.data?.id).endsWith('-summarized'),
    );

    // The frames come from the events projection; the memory view's model follows the stream on its own tail
    // and pushes nothing when it folds, so its answer is asked until it holds the profile and the summary.
    type View = {
      counterparty_profiles: Array<Record<string, unknown>>;
      personal_memories: { long: Array<Record<string, unknown>> };
      episodes: Array<Record<string, unknown>>;
    };
    const ready = (v: View | null): boolean =>
      v !== null &&
      v.counterparty_profiles.length > 0 &&
      v.episodes[0]?.['task_summary'] === 'When item 7 ships';
    const memoryView = async (): Promise<View | null> => {
      const res = await fetch(`${node.url}/agents/ada/memory`);
      return res.status === 200 ? ((await res.json()) as View) : null;
    };
    let view = await until(memoryView, ready, { timeoutMs: 10_000, everyMs: 25 });
    t.match(view, {
      counterparty_profiles: [
        {
          subject_label: 'Grace Hopper',
          subject_handle: 'grace',
          subject_external_id: 'u-42',
          subject_platform: 'tracker-b',
          subject_name: 'Grace Hopper',
          traits: { role: 'release manager' },
          interaction_count: 1,
          first_seen_at: String,
          last_updated_at: String,
          last_corroborated_at: null,
        },
      ],
      personal_memories: {
        long: [{ content: 'Check the release calendar first.', metadata: { source: 'reflection' } }],
      },
      episodes: [{ task_summary: 'When item 7 ships', review_outcome: 'passed_first' }],
    });
    t.equal(view?.episodes.length, 1, 'the summarised record replaces the episode');

    // A second episode: past the cap of one, the first leaves the view.
    const first = view?.episodes[0]?.['id'];
    await queueWake(bus, 'ada', mentionWake('Item 8: is it done?', { payload: { notification: grace } }));
    await frame((f) => f.kind === 'event' && f.data?.type === 'episodes_pruned');
    const latest = (v: View | null): boolean =>
      v !== null && v.episodes.length === 1 && v.episodes[0]?.['task_summary'] === 'Whether item 8 is done';
    view = await until(memoryView, latest, { timeoutMs: 10_000, everyMs: 25 });
    t.ok(latest(view), 'the view lists only the newest episode');
    const gone = await fetch(`${node.url}/agents/ada/memory/episodes/${String(first)}`);
    t.equal(gone.status, 404, 'nor is the pruned one served');
  },
);
