/**
 * A seat's memory belongs to the fleet, not to the node that ran it (ops/turn-engine.md "Personal memory",
 * "Counterparty profiles"): on three `svc serve` children of one nats-server — an ingress node that runs no
 * seat and two seats nodes, one after the other — a turn on the first keeps notes and leaves a profile of the
 * person who woke it. The ingress node's memory view shows the notes whole (content, metadata, ttl), the
 * episode and the profile; once the first seats node stops, the second takes the seat over, recalls the
 * notes and reads the profile in its prompt, and the ingress node's view counts both exchanges.
 */
import t from 'tap';
import { ensureCatalogue, openBus } from '../../bus/index.js';
import { startLlmServer } from '../fixtures/llm/llm-server.js';
import type { Step } from '../fixtures/llm/script.js';
import { startFleetNode, until, type FleetNode } from '../harness/fleet-node.js';
import { startNatsServer } from '../harness/nats-server.js';
import { mentionWake, notificationFrom, queueWake } from '../harness/wake.js';
import { profiled, putLearningCompany, usage } from './fixtures/learning-company.js';

const plan = (tool: string): Step => ({
  kind: 'text',
  text: JSON.stringify({ decision: 'plan', steps: ['do it'], tools: [tool] }),
  usage,
});
const done: Step = { kind: 'text', text: '{"verdict":"done","notes":"ok"}', usage };

type Row = Record<string, unknown>;
interface View {
  agent_id: string;
  runtime_id: string;
  personal_memories: { long: Row[]; short: Row[] };
  episodes: Row[];
  counterparty_profiles: Row[];
}
const memoryOf = async (node: FleetNode): Promise<View> =>
  (await (await fetch(`${node.url}/agents/ada/memory`)).json()) as View;

t.test(
  'notes, episodes and profiles kept on one seats node are read whole by the ingress node and by the node that takes the seat over',
  async (t) => {
    const nats = await startNatsServer({ t });
    const turns: Step[] = [
      plan('memory_remember'),
      {
        kind: 'tool_calls',
        calls: [
          {
            id: 'm1',
            name: 'memory_remember',
            arguments: { content: 'Grace signs off releases', metadata: { topic: 'release' } },
          },
          {
            id: 'm2',
            name: 'memory_remember',
            arguments: { content: 'Freeze ends at five', kind: 'short', ttl_seconds: 3600 },
          },
        ],
        usage,
      },
      { kind: 'text', text: 'Noted who signs off.', usage },
      done,
      plan('memory_recall'),
      { kind: 'tool_calls', calls: [{ id: 'r1', name: 'memory_recall', arguments: {} }], usage },
      { kind: 'text', text: 'Asked Grace to sign off.', usage },
      done,
    ];
    let turnCalls = 0;
    let profilerCalls = 0;
    const llm = await startLlmServer({
      wire: 'openai',
      script: (request) => {
        if (!JSON.stringify(request.body).includes('profile of a person'))
          return turns[turnCalls++] ?? { kind: 'status', status: 500 };
        profilerCalls += 1;
        return profiled('release manager');
      },
    });
    t.teardown(() => llm.close());

    const front = await startFleetNode(t, 'node-front', nats.url, { node: 'roles: [ingress, data]' });
    const first = await startFleetNode(t, 'node-s1', nats.url, { node: 'roles: [seats]' });
    t.equal(await putLearningCompany(front.url, llm.baseUrl, 'fleet'), 201);
    await first.run.waitForLog((l) => l.msg === 'seat spawned' && l['seat'] === 'ada');

    const bus = await openBus({ type: 'jetstream', url: nats.url });
    t.teardown(() => bus.close());
    await ensureCatalogue(bus);
    const grace = notificationFrom({ id: 'u-42', login: 'grace', name: 'Grace Hopper' });
    await queueWake(
      bus,
      'ada',
      mentionWake('Who signs off the release?', { payload: { notification: grace } }),
    );

    const seen = await until(
      () => memoryOf(front),
      (v) => v.episodes.length === 1 && v.counterparty_profiles.length === 1,
    );
    t.match(seen, {
      personal_memories: {
        long: [{ content: 'Grace signs off releases', metadata: { topic: 'release' }, ttl_until: null }],
        short: [{ content: 'Freeze ends at five', ttl_until: String, expired: false }],
      },
      episodes: [
        {
          task_summary: 'Who signs off the release?',
          tool_sequence: ['memory_remember', 'memory_remember'],
          review_outcome: 'passed_first',
          turn_id: String,
        },
      ],
      counterparty_profiles: [{ subject_handle: 'grace', interaction_count: 1 }],
    });
    t.equal(seen.runtime_id, seen.agent_id, 'runtime_id is the durable agent id');

    // The first seats node stops; the second takes the seat over and runs the next turn.
    first.run.kill('SIGTERM');
    t.equal(await first.run.exited, 0);
    const second = await startFleetNode(t, 'node-s2', nats.url, { node: 'roles: [seats]' });
    await second.run.waitForLog((l) => l.msg === 'seat spawned' && l['seat'] === 'ada');
    await queueWake(bus, 'ada', mentionWake('Ask for the sign-off', { payload: { notification: grace } }));

    const after = await until(
      () => memoryOf(front),
      (v) => v.episodes.length === 2 && v.counterparty_profiles[0]?.['interaction_count'] === 2,
    );
    t.match(after.episodes[0], { task_summary: 'Ask for the sign-off', tool_sequence: ['memory_recall'] });
    const asked = llm.requests.map((r) => JSON.stringify(r.body));
    const from = asked.findIndex((b) => b.includes('Ask for the sign-off'));
    t.match(asked[from], /What you know about Grace Hopper/, 'the new holder reads the profile');
    t.ok(
      asked.slice(from).some((b) => b.includes('"role":"tool"') && b.includes('Grace signs off releases')),
      'the new holder recalls the note kept on the other node',
    );
    t.equal(
      profilerCalls,
      1,
      'the profiler rests across the handover: the second exchange is held, not asked',
    );
    const episode = await fetch(
      `${front.url}/agents/ada/memory/episodes/${String(after.episodes[1]?.['id'])}`,
    );
    t.match(await episode.json(), {
      task_summary: 'Who signs off the release?',
      account: 'Noted who signs off.',
    });
  },
);
