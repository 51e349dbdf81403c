/**
 * Seat kind transitions inside `svc serve` (spec "Seat kind and seat activity"): an agent seat flipped to
 * human is decommissioned and leaves the agent reads; flipped back, it is spawned under the same
 * deterministic agent id, with its budget and per-seat tool server, its inbox answers again and the notes
 * it kept before are its own again.
 */
import t from 'tap';
import { startLlmServer } from '../fixtures/llm/llm-server.js';
import { echoServerPath } from '../fixtures/mcp/servers.js';
import { startBusNode } from '../harness/bus-node.js';
import { TOKEN, type ServedNode } from '../harness/serve-node.js';
import { until } from '../harness/until.js';
import { mentionWake, queueWake } from '../harness/wake.js';
import { localProviders } from '../fixtures/llm/providers.js';

type Json = Record<string, unknown>;
const usage = { prompt_tokens: 10, completion_tokens: 5 };
const NOTE = 'Deploys happen on Tuesdays';

const plan = (tool: string) => ({
  kind: 'text' as const,
  text: `{"decision":"plan","steps":["s"],"success_criteria":["c"],"tools":["${tool}"]}`,
  usage,
});
const review = { kind: 'text' as const, text: '{"verdict":"done","notes":"ok"}', usage };

function company(llmBase: string, kind: 'agent' | 'human'): Json {
  return {
    name: 'Acme',
    providers: localProviders(llmBase),
    mcp_servers: [{ name: 'gh', shared: false, command: process.execPath, args: [echoServerPath] }],
    roles: [
      kind === 'agent'
        ? { name: 'Ada', token_budget: 100000 }
        : { name: 'Ada', kind: 'human', contact: { chat_user_id: 'U0ADA' } },
      { name: 'Hu', kind: 'human', contact: { operator_id: 'ops' } },
    ],
  };
}

async function put(node: ServedNode, body: Json, epoch: number): Promise<void> {
  const res = await fetch(`${node.url}/config`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'x-summary': 'kind' },
    body: JSON.stringify(body),
  });
  if (res.status !== 201) throw new Error(`PUT answered ${res.status}: ${await res.text()}`);
  await node.run.waitForLog((l) => l.msg === 'config applied' && l['epoch'] === epoch);
}

const read = async (node: ServedNode, path: string): Promise<{ status: number; body: Json }> => {
  const res = await fetch(`${node.url}${path}`);
  return { status: res.status, body: (await res.json()) as Json };
};
const agentsOf = async (node: ServedNode): Promise<Json[]> =>
  (await read(node, '/agents')).body as unknown as Json[];
/** The seats this node runs a per-seat `gh` server for. */
const ghSeats = async (node: ServedNode): Promise<unknown[]> => {
  const res = await fetch(`${node.url}/mcp-servers`, { headers: { authorization: `Bearer ${TOKEN}` } });
  const body = (await res.json()) as { nodes: Array<{ servers: Array<{ server: string; seat: unknown }> }> };
  return body.nodes.flatMap((n) => n.servers.filter((s) => s.server === 'gh').map((s) => s.seat));
};
const longNotes = (view: Json): string[] =>
  ((view['personal_memories'] as { long: Json[] }).long ?? []).map((r) => String(r['content']));

t.test(
  'a seat flipped to human is decommissioned; flipped back it reattaches its agent id, inbox and memory',
  async (t) => {
    const llm = await startLlmServer({
      wire: 'openai',
      script: [
        plan('memory_remember'),
        {
          kind: 'tool_calls',
          calls: [{ id: 'm1', name: 'memory_remember', arguments: { content: NOTE } }],
          usage,
        },
        { kind: 'text', text: 'Noted.', usage },
        review,
        plan('memory_recall'),
        { kind: 'tool_calls', calls: [{ id: 'r1', name: 'memory_recall', arguments: {} }], usage },
        { kind: 'text', text: 'Recalled.', usage },
        review,
      ],
    });
    t.teardown(() => llm.close());
    const { node, bus } = await startBusNode(t);

    // 1. As an agent, Ada keeps a note.
    await put(node, company(llm.baseUrl, 'agent'), 1);
    const spawned = await node.run.waitForLog((l) => l.msg === 'seat spawned' && l['seat'] === 'ada');
    const agentId = String(spawned['agent_id']);
    await queueWake(bus, 'ada', mentionWake('Remember the deploy day'));
    const before = await until(
      () => read(node, '/agents/ada/memory'),
      (r) => r.status === 200 && longNotes(r.body).includes(NOTE),
      20_000,
    );
    t.equal(before.body['agent_id'], agentId);
    t.same(await ghSeats(node), ['ada'], 'an agent seat runs its per-seat tool server');
    // The note is stored mid-turn: the row reads idle once that turn has ended.
    const row = await until(
      async () => (await agentsOf(node)).find((a) => a['id'] === 'ada'),
      (r) => r?.['activity'] === 'idle',
      20_000,
    );
    t.match(row, { agent_id: agentId, activity: 'idle', stopped_reason: null });

    // 2. Flipped to human: the instance goes, and the agent reads no longer name the seat.
    await put(node, company(llm.baseUrl, 'human'), 2);
    t.ok(
      node.run.lines.some((l) => l.msg === 'seat decommissioned' && l['seat'] === 'ada'),
      'the agent instance is decommissioned',
    );
    t.notOk(
      (await agentsOf(node)).some((a) => a['id'] === 'ada'),
      '/agents lists agent seats only',
    );
    const gone = await read(node, '/agents/ada/memory');
    t.equal(gone.status, 404);
    t.equal(gone.body['error'], 'not_found');

    // 3. Flipped back: spawned under the same id, with its note, and its inbox wakes it again.
    const spawnsOfAda = () => node.run.lines.filter((l) => l.msg === 'seat spawned' && l['seat'] === 'ada');
    t.equal(spawnsOfAda().length, 1);
    await put(node, company(llm.baseUrl, 'agent'), 3);
    const spawns = await until(
      async () => spawnsOfAda(),
      (s) => s.length === 2,
      10_000,
    );
    t.equal(String(spawns[1]!['agent_id']), agentId, 'the deterministic id is the same');
    const back = await until(
      async () => (await agentsOf(node)).find((a) => a['id'] === 'ada'),
      (r) => r?.['activity'] === 'idle',
      20_000,
    );
    t.match(back, { agent_id: agentId, activity: 'idle', stopped_reason: null });
    t.match(back, { budget: { seat: { cap: 100000 } } }, 'spawned with its budget');
    t.same(await ghSeats(node), ['ada'], 'and its per-seat tool server');
    const view = await read(node, '/agents/ada/memory');
    t.equal(view.status, 200);
    t.ok(longNotes(view.body).includes(NOTE), 'the note kept before the flip reads back');

    await queueWake(bus, 'ada', mentionWake('What is the deploy day?'));
    await llm.waitForRequests(7);
    // The request after the recall carries the tool's answer: the seat reads its own old note.
    t.notOk(JSON.stringify(llm.requests[4]?.body).includes(NOTE), 'the plan prompt does not carry it');
    t.ok(JSON.stringify(llm.requests[6]?.body).includes(NOTE), 'memory_recall returns the old note');
  },
);
