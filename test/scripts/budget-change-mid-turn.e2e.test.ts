/**
 * A budget lowered while a turn runs (spec `token_budget`, org-wide and per seat, "checked before each model
 * call"): the turn stops at its next model call with `budget_exhausted` naming the scope, whichever of the two
 * caps was lowered, on a served node talking to a local Anthropic-wire model.
 */
import t from 'tap';
import { startLlmServer } from '../fixtures/llm/llm-server.js';
import { startBusNode } from '../harness/bus-node.js';
import { TOKEN, type ServedNode } from '../harness/serve-node.js';
import { until } from '../harness/until.js';
import { mentionWake, queueWake } from '../harness/wake.js';

type Row = { id: string; type: string };
type Loose = Record<string, unknown>;

const usage = { input_tokens: 100, output_tokens: 10 };

async function apply(node: ServedNode, budgets: { org: number; ada: number }, llmUrl: string): Promise<void> {
  const res = await fetch(`${node.url}/config`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'x-summary': 'budgets' },
    body: JSON.stringify({
      name: 'Acme',
      token_budget: budgets.org,
      providers: {
        llm: { main: { type: 'anthropic', model: 'claude-t', base_url: llmUrl, api_keys: ['sk-t'] } },
        llm_order: ['main'],
      },
      roles: [
        { name: 'Ada', token_budget: budgets.ada },
        { name: 'Bob', token_budget: 0 },
      ],
    }),
  });
  if (res.status !== 201 && res.status !== 200) throw new Error(`apply: ${res.status} ${await res.text()}`);
}

/** The payload of the trace's `budget_exhausted` event, once the trace's turn completed. */
async function exhausted(node: ServedNode, trace: string): Promise<Loose | undefined> {
  const read = async () =>
    (await (await fetch(`${node.url}/events/trace/${trace}`)).json()) as {
      events?: Array<Row & { payload?: Loose }>;
    };
  const done = await until(
    read,
    (r) => (r.events ?? []).some((e) => e.type === 'agent_turn_completed'),
    30_000,
  );
  return done.events?.find((e) => e.type === 'budget_exhausted')?.payload;
}

t.test(
  'a cap lowered while a turn runs stops it at its next model call, seat cap and org cap alike',
  async (t) => {
    const opened = new Set<string>();
    // The first call of each seat's turn (its plan) is held until the test has lowered the cap.
    const llm = await startLlmServer({
      wire: 'anthropic',
      script: (req) => {
        const text = JSON.stringify(req.body);
        const who = ['ada-task', 'bob-task'].find((w) => text.includes(w));
        const first = who !== undefined && !opened.has(who);
        if (who !== undefined) opened.add(who);
        return {
          kind: 'text',
          text: '{"verdict":"done","notes":"ok"}',
          usage,
          ...(first ? { hold: who } : {}),
        };
      },
    });
    t.teardown(() => llm.close());
    const { node, bus } = await startBusNode(t);
    await apply(node, { org: 0, ada: 0 }, llm.baseUrl);
    await node.run.waitForLog((l) => l.msg === 'seat spawned' && l['seat'] === 'bob');

    const ada = mentionWake('ada-task');
    await queueWake(bus, 'ada', ada);
    await llm.waitForRequests(1);
    await apply(node, { org: 0, ada: 50 }, llm.baseUrl);
    await node.run.waitForLog((l) => l.msg === 'config applied' && l['epoch'] === 2);
    llm.release('ada-task');
    t.match(
      await exhausted(node, ada.trace_id),
      { scope: 'seat', cap: 50, used: 110 },
      "Ada's cap lowered during her plan call refuses the call after it",
    );

    const bob = mentionWake('bob-task');
    const before = llm.requests.length;
    await queueWake(bus, 'bob', bob);
    await llm.waitForRequests(before + 1);
    await apply(node, { org: 150, ada: 50 }, llm.baseUrl);
    await node.run.waitForLog((l) => l.msg === 'config applied' && l['epoch'] === 3);
    llm.release('bob-task');
    t.match(
      await exhausted(node, bob.trace_id),
      { scope: 'org', cap: 150, used: 220 },
      "the org cap lowered during Bob's plan call refuses the call after it",
    );
  },
);
