/**
 * Personal memory, needs and episodes inside `svc serve` (on JetStream, so the test can wake a seat on
 * the node's own inbox): a turn keeps notes and asks a human; the node's read routes show them.
 */
import t from 'tap';
import { startLlmServer } from '../fixtures/llm/llm-server.js';
import { startBusNode } from '../harness/bus-node.js';
import { TOKEN } from '../harness/serve-node.js';
import { until } from '../harness/until.js';
import { mentionWake, queueWake } from '../harness/wake.js';
import { dashboard, type Frame } from '../http/fixtures/events-node.js';
import { localProviders } from '../fixtures/llm/providers.js';

const usage = { prompt_tokens: 10, completion_tokens: 5 };

t.test(
  'a served seat keeps notes in the memory store, asks a human and records an episode; the read routes show them',
  async (t) => {
    const llm = await startLlmServer({
      wire: 'openai',
      script: [
        {
          kind: 'text',
          text: '{"decision":"plan","steps":["note"],"success_criteria":["noted"],"tools":["memory_remember","ask_human"]}',
          usage,
        },
        {
          kind: 'tool_calls',
          calls: [
            { id: 'm1', name: 'memory_remember', arguments: { content: 'Deploys happen on Tuesdays' } },
            {
              id: 'm2',
              name: 'memory_remember',
              arguments: { content: 'Lunch order is due at noon', kind: 'short', ttl_seconds: 3600 },
            },
            { id: 'a1', name: 'ask_human', arguments: { to: 'hu', question: 'May I deploy today?' } },
          ],
          usage,
        },
        { kind: 'text', text: 'Noted the deploy day; asked Hu.', usage },
        { kind: 'text', text: '{"verdict":"done","notes":"ok"}', usage },
      ],
    });
    t.teardown(() => llm.close());
    const { node, bus } = await startBusNode(t);
    const d = await dashboard(`${node.url.replace('http', 'ws')}/ws/stream`);
    t.teardown(() => d.client.close());
    const frame = (match: (f: Frame) => boolean): Promise<Frame> =>
      Promise.resolve(d.frames.find(match) ?? d.next(match));

    const put = await fetch(`${node.url}/config`, {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${TOKEN}`,
        'content-type': 'application/json',
        'x-summary': 'memory',
      },
      body: JSON.stringify({
        name: 'Acme',
        providers: localProviders(llm.baseUrl),
        roles: [{ name: 'Ada' }, { name: 'Hu', kind: 'human', contact: { operator_id: 'ops' } }],
      }),
    });
    t.equal(put.status, 201);
    await node.run.waitForLog((l) => l.msg === 'config applied');

    await queueWake(bus, 'ada', mentionWake('Find out whether we deploy today'));

    // The completion carries the need: the agent row goes to `needs`.
    const needs = await frame((f) => f.kind === 'agents' && f.data?.ada?.activity === 'needs');
    t.match(needs.data.ada, { activity: 'needs' });
    await frame((f) => f.kind === 'event' && f.data?.type === 'episode_recorded');

    // The read models follow the same stream on their own tail and push nothing for the memory view when they
    // fold: its answer is asked until it holds the episode.
    type View = {
      personal_memories: { long: Array<Record<string, unknown>>; short: Array<Record<string, unknown>> };
      episodes: Array<Record<string, unknown>>;
    };
    const view = await until(
      async () => {
        const res = await fetch(`${node.url}/agents/ada/memory`);
        return res.status === 200 ? ((await res.json()) as View) : null;
      },
      (v) => (v?.episodes.length ?? 0) > 0,
      { timeoutMs: 10_000, everyMs: 25 },
    );
    t.match(view, {
      personal_memories: {
        long: [{ content: 'Deploys happen on Tuesdays', ttl_until: null }],
        short: [{ content: 'Lunch order is due at noon', expired: false }],
      },
      episodes: [
        {
          task_summary: 'Find out whether we deploy today',
          tool_sequence: ['memory_remember', 'memory_remember', 'ask_human'],
          review_outcome: 'passed_first',
        },
      ],
    });
    const episode = view!.episodes[0]!;
    t.notOk('account' in episode, 'the list leaves the account to the episode route');
    const one = (await (
      await fetch(`${node.url}/agents/ada/memory/episodes/${String(episode['id'])}`)
    ).json()) as {
      account: string;
    };
    t.equal(one.account, 'Noted the deploy day; asked Hu.');
  },
);
