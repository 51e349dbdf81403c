/**
 * A unit renamed or removed while one of its seats is mid-turn (spec "Revision activation": in-flight turns
 * finish on the prior settings), on a served node talking to a local model that holds a call of the turn
 * until the config has changed. Renamed: the turn finishes once, on the prompt it began with, and the seat
 * then reads its new unit under the same agent id. Removed: the turn is cut (ops/turn-engine.md: never
 * completed, never taken up again), the call answered before counts once, and the agent reads drop the seat.
 */
import t from 'tap';
import { startLlmServer, type LlmServer } from '../fixtures/llm/llm-server.js';
import { localProviders } from '../fixtures/llm/providers.js';
import { startBusNode } from '../harness/bus-node.js';
import { TOKEN, type ServedNode } from '../harness/serve-node.js';
import { until } from '../harness/until.js';
import { mentionWake, queueWake } from '../harness/wake.js';

type Json = Record<string, unknown>;
const usage = { prompt_tokens: 100, completion_tokens: 10 };

const company = (llmBase: string, unit: string | null): Json => ({
  name: 'Acme',
  providers: localProviders(llmBase),
  roles: [{ name: 'Hu', kind: 'human', contact: { operator_id: 'ops' } }],
  units:
    unit === null
      ? []
      : [{ name: unit, type: 'team', roles: [{ name: 'Ada', goal: 'Ship', token_budget: 100000 }] }],
});

async function write(node: ServedNode, path: string, body: Json, epoch: number): Promise<void> {
  const res = await fetch(`${node.url}${path}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'x-summary': 'unit' },
    body: JSON.stringify(body),
  });
  if (res.status !== 201) throw new Error(`PUT ${path} answered ${res.status}: ${await res.text()}`);
  await node.run.waitForLog((l) => l.msg === 'config applied' && l['epoch'] === epoch);
}

const read = async (node: ServedNode, path: string): Promise<Json> =>
  (await (
    await fetch(`${node.url}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } })
  ).json()) as Json;
const agentsOf = async (node: ServedNode): Promise<Json[]> =>
  (await read(node, '/agents')) as unknown as Json[];

/** The trace's events once its turn completed. */
async function turnEvents(node: ServedNode, trace: string): Promise<Json[]> {
  const done = await until(
    async () => ((await read(node, `/events/trace/${trace}`))['events'] ?? []) as Json[],
    (events) => events.some((e) => e['type'] === 'agent_turn_completed'),
    30_000,
  );
  return done;
}

/**
 * Every model call answers a finished review. `rename-task` is held at its first call (the plan), before
 * anything was spent; `remove-task` at its second, once the plan's spend was stored.
 */
function model(): Promise<LlmServer> {
  const calls = new Map<string, number>();
  const heldAt: Record<string, number> = { 'rename-task': 1, 'remove-task': 2 };
  return startLlmServer({
    wire: 'openai',
    script: (req) => {
      const text = JSON.stringify(req.body);
      const task = Object.keys(heldAt).find((w) => text.includes(w));
      const n = task === undefined ? 0 : (calls.get(task) ?? 0) + 1;
      if (task !== undefined) calls.set(task, n);
      const held = task !== undefined && heldAt[task] === n;
      return {
        kind: 'text',
        text: '{"verdict":"done","notes":"ok"}',
        usage,
        ...(held ? { hold: task } : {}),
      };
    },
  });
}

t.test(
  'a unit renamed mid-turn: the turn finishes once on its prior prompt; the seat reads the new unit',
  async (t) => {
    const llm = await model();
    t.teardown(() => llm.close());
    const { node, bus } = await startBusNode(t);
    await write(node, '/config', company(llm.baseUrl, 'Eng'), 1);
    const spawned = await node.run.waitForLog((l) => l.msg === 'seat spawned' && l['seat'] === 'ada');

    const wake = mentionWake('rename-task');
    await queueWake(bus, 'ada', wake);
    await llm.waitForRequests(1);
    // An entity write cannot rename (its path is the identity): the rename is a document write.
    const refused = await fetch(`${node.url}/config/units/Eng`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'x-summary': 'unit' },
      body: JSON.stringify({ name: 'Platform', type: 'team', roles: [{ name: 'Ada', goal: 'Ship' }] }),
    });
    t.equal(refused.status, 400);
    t.match(await refused.json(), { error: 'identity_mismatch' });
    await write(node, '/config', company(llm.baseUrl, 'Platform'), 2);
    llm.release('rename-task');

    const events = await turnEvents(node, wake.trace_id);
    t.equal(events.filter((e) => e['type'] === 'agent_turn_completed').length, 1, 'the turn completes once');
    const ofTurn = llm.requests.filter((r) => JSON.stringify(r.body).includes('rename-task'));
    t.ok(ofTurn.length >= 1, 'the turn called the model');
    t.notOk(
      ofTurn.some((r) => JSON.stringify(r.body).includes('Platform')),
      'no call of the in-flight turn carries the new unit',
    );
    const row = await until(
      async () => (await agentsOf(node)).find((a) => a['id'] === 'ada'),
      (r) => r?.['activity'] === 'idle' && r['unit'] === 'Platform',
      20_000,
    );
    t.match(row, { agent_id: spawned['agent_id'], unit: 'Platform', stopped_reason: null });
    t.notOk(
      node.run.lines.some((l) => l.msg.startsWith('turn cut')),
      'the rename cuts no turn',
    );
    t.notOk(
      node.run.lines.some((l) => l.msg === 'seat decommissioned'),
      'a renamed unit keeps its seats running',
    );
    const breakdown = await until(
      () => read(node, '/tokens/breakdown'),
      (b) => ((b['by_turn'] as Json[] | undefined) ?? []).length > 0,
      20_000,
    );
    t.equal((breakdown['by_turn'] as Json[]).length, 1, 'one turn is counted');
    t.equal((breakdown['totals'] as Json)['calls'], ofTurn.length, 'each call is counted once');

    // A later wake runs on the new unit.
    const next = mentionWake('after-rename');
    await queueWake(bus, 'ada', next);
    await turnEvents(node, next.trace_id);
    const later = llm.requests.filter((r) => JSON.stringify(r.body).includes('after-rename'));
    t.ok(later.length >= 1, 'the next turn called the model');
    t.ok(
      later.some((r) => JSON.stringify(r.body).includes('Platform')),
      'the next turn carries the new unit',
    );
  },
);

t.test(
  'a unit removed mid-turn: the turn is cut once, its spend counts once and /agents drops the seat',
  async (t) => {
    const llm = await model();
    t.teardown(() => llm.close());
    const { node, bus } = await startBusNode(t);
    await write(node, '/config', company(llm.baseUrl, 'Eng'), 1);
    await node.run.waitForLog((l) => l.msg === 'seat spawned' && l['seat'] === 'ada');

    const wake = mentionWake('remove-task');
    await queueWake(bus, 'ada', wake);
    await llm.waitForRequests(2);
    const started = node.run.lines.find((l) => l.msg === 'turn started' && l['seat'] === 'ada');
    // Removal by an entity write: the unit keeps its name and loses its only seat.
    await write(node, '/config/units/Eng', { name: 'Eng', type: 'team', roles: [] }, 2);
    llm.release('remove-task');

    // A removal cuts the turn (ops/turn-engine.md): journaled, never completed, never taken up again.
    t.ok(
      node.run.lines.some((l) => l.msg.startsWith('turn cut') && l['turn_id'] === started?.['turn_id']),
      'the running turn is cut by the apply',
    );
    t.ok(
      node.run.lines.some((l) => l.msg === 'seat decommissioned' && l['seat'] === 'ada'),
      'the seat is decommissioned',
    );
    t.notOk(
      (await agentsOf(node)).some((a) => a['id'] === 'ada'),
      '/agents no longer lists the removed seat',
    );
    const tokens = await until(
      () => read(node, '/tokens/breakdown'),
      (b) => (b['totals'] as Json)['calls'] === 1,
      20_000,
    );
    t.match(tokens['totals'], { calls: 1, total_tokens: 110 }, 'the answered plan call counts once');
    t.match(
      (tokens['by_agent'] as Json[]).map((a) => [a['handle'], a['total_tokens']]),
      [['ada', 110]],
      "the removed seat's spend stays counted",
    );
    t.match((await read(node, '/budgets'))['org'], { used: 110 }, 'the budget counts it once too');
    const trace = ((await read(node, `/events/trace/${wake.trace_id}`))['events'] ?? []) as Json[];
    t.notOk(
      trace.some((e) => e['type'] === 'agent_turn_completed'),
      'a cut turn does not complete',
    );
    t.equal(llm.requests.length, 2, 'the cut turn makes no further call');
    t.equal((await read(node, '/health'))['status'], 'ok', 'the node serves on');
    t.notOk(
      node.run.lines.some((l) => Number(l['level']) >= 50),
      'nothing is logged at error',
    );
  },
);
