/**
 * A seat removed from the company loses its pause, and one added back under the same handle starts
 * unpaused (ops/turn-engine.md "Pause and resume"): on a served node the seat's `/agents` row says so too,
 * not only its host. The row read the pause from the `agent_paused` event, which no resume followed, so
 * the seat added back read `stopped` / `paused` while it ran, and a resume answered `changed: false`.
 */
import t, { type Test } from 'tap';
import { startLlmServer } from '../fixtures/llm/llm-server.js';
import { startNode, TOKEN, type ServedNode } from '../harness/serve-node.js';
import { until } from '../harness/until.js';

type Row = { id: string; activity: string; stopped_reason: string | null; paused: unknown };

const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
const rowOf = async (node: ServedNode, id: string): Promise<Row | undefined> =>
  ((await (await fetch(`${node.url}/agents`)).json()) as Row[]).find((r) => r.id === id);

async function apply(t: Test, node: ServedNode, llmUrl: string, roles: string[]): Promise<void> {
  const res = await fetch(`${node.url}/config`, {
    method: 'PUT',
    headers: { ...auth, 'x-summary': roles.join(' ') },
    body: JSON.stringify({
      name: 'Acme',
      providers: {
        llm: { main: { type: 'openai-compatible', model: 'm', base_url: llmUrl } },
        llm_order: ['main'],
      },
      roles: roles.map((name) => ({ name })),
    }),
  });
  t.equal(res.status, 201, 'applied');
  const { epoch } = (await res.json()) as { epoch: number };
  await node.run.waitForLog((l) => l.msg === 'config applied' && l['epoch'] === epoch);
}

t.test(
  'a seat added back under the handle of a paused seat that was removed reads unpaused in /agents',
  async (t) => {
    const llm = await startLlmServer({ wire: 'openai', script: [] });
    t.teardown(() => llm.close());
    const node = await startNode(t);
    await apply(t, node, llm.baseUrl, ['Ada', 'Bob']);
    const paused = await fetch(`${node.url}/agents/bob/pause`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ reason: 'audit' }),
    });
    t.equal(paused.status, 200);
    await until(
      () => rowOf(node, 'bob'),
      (r) => r?.stopped_reason === 'paused',
      10_000,
    );

    await apply(t, node, llm.baseUrl, ['Ada']);
    await node.run.waitForLog((l) => l.msg === 'pause of removed seats cleared');
    await apply(t, node, llm.baseUrl, ['Ada', 'Bob']);
    const row = await until(
      () => rowOf(node, 'bob'),
      (r) => r !== undefined && r.paused === null,
      10_000,
    ).catch(async () => rowOf(node, 'bob'));
    t.match(row, { id: 'bob', activity: 'idle', stopped_reason: null, paused: null }, 'added back unpaused');
    const resumed = await fetch(`${node.url}/agents/bob/resume`, {
      method: 'POST',
      headers: auth,
      body: '{}',
    });
    t.match(await resumed.json(), { paused: null, changed: false }, 'the seat itself was not paused either');
  },
);
