/**
 * A seat's stop outlives the node (spec "Seat kind and seat activity"): a seat stopped for `budget` (it
 * spent past its cap) or for `provider` (its chain failed) reads the same in `/agents` after the node is
 * told to stop (SIGTERM) or killed (SIGKILL) and served again on the same store; a seat that was idle stays
 * idle. Nothing but the cause going clears a stop, and a restart is not the cause going.
 */
import t, { type Test } from 'tap';
import { startLlmServer } from '../fixtures/llm/llm-server.js';
import { call } from '../harness/api.js';
import { startBusNode } from '../harness/bus-node.js';
import type { SvcChild } from '../harness/child.js';
import { serveAgain, type ServedNode } from '../harness/serve-node.js';
import { mentionWake, queueWake } from '../harness/wake.js';
import { reading, rows } from './fixtures/seat-rows.js';

const table = async (node: ServedNode): Promise<string[][]> =>
  (await rows(node)).map((r) => [r.id, r.activity, String(r.stopped_reason)]);

const expected = [
  ['ada', 'stopped', 'budget'],
  ['bob', 'stopped', 'provider'],
  ['cy', 'idle', 'null'],
];

/** Serves the stopped node's store again; resolves once it serves, its revision applied. */
async function serveApplied(t: Test, node: ServedNode): Promise<SvcChild> {
  const again = await serveAgain(t, node);
  await again.waitForLog((line) => line.msg === 'config applied');
  return again;
}

t.test('seats stopped for budget or provider read stopped after a SIGTERM or a SIGKILL', async (t) => {
  const big = { prompt_tokens: 4000, completion_tokens: 100 };
  const spender = await startLlmServer({
    wire: 'openai',
    script: [{ kind: 'text', text: '{"decision":"skip"}', usage: big }],
  });
  t.teardown(() => spender.close());
  const silent = await startLlmServer({
    wire: 'openai',
    script: [{ kind: 'text', text: '{"decision":"skip"}', hold: 'never' }],
  });
  t.teardown(() => silent.close());
  const { node, bus } = await startBusNode(t);

  const put = await call(node.url, 'PUT', '/config', {
    name: 'Acme',
    providers: {
      llm: {
        spender: { type: 'openai-compatible', model: 'm-1', base_url: spender.baseUrl },
        silent: { type: 'openai-compatible', model: 'm-2', base_url: silent.baseUrl, timeout_seconds: 1 },
      },
      llm_order: ['spender'],
    },
    roles: [{ name: 'Ada', token_budget: 1000 }, { name: 'Bob', llm: 'silent' }, { name: 'Cy' }],
  });
  t.equal(put.status, 201, JSON.stringify(put.body));
  await node.run.waitForLog((l) => l.msg === 'config applied');
  await queueWake(bus, 'ada', mentionWake('Spend'));
  await reading(node, 'ada', 'stopped', 'budget');
  await queueWake(bus, 'bob', mentionWake('Ask the silent provider'));
  await reading(node, 'bob', 'stopped', 'provider');
  t.same(await table(node), expected, 'before the stop');

  let run = node.run;
  for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
    run.kill(signal);
    await run.exited;
    run = await serveApplied(t, node);
    t.same(await table(node), expected, `after ${signal}: the same activity and reasons`);
  }
});
