/**
 * The spend read models after a restart (spec "Ordering and projection rules": projections are rebuilt by
 * replay): `/tokens/breakdown`, `/tokens/series`, `/budgets` and the memory view's episodes read the same
 * figures from a node restarted on the same store as from the node that counted them live, turns older than
 * the boot seed's newest three per seat included.
 */
import t from 'tap';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { startLlmServer } from '../fixtures/llm/llm-server.js';
import { call } from '../harness/api.js';
import { startBusNode } from '../harness/bus-node.js';
import { serveAgain } from '../harness/serve-node.js';
import { until } from '../harness/until.js';
import { mentionWake, queueWake } from '../harness/wake.js';

type Loose = Record<string, unknown>;

const reads = [
  '/tokens/breakdown',
  '/tokens/breakdown?agent_role=ada&recent_turns=3',
  '/tokens/series',
  '/tokens/series?band=agent',
  '/budgets',
  '/agents/ada/memory',
];

t.test(
  'a node restarted on its store answers the spend reads with the figures it counted live',
  async (t) => {
    let n = 0;
    const llm = await startLlmServer({
      wire: 'anthropic',
      // Each call spends differently, so a turn mixed up with another shows.
      script: () => ({
        kind: 'text',
        text: '{"verdict":"done","notes":"ok"}',
        usage: { input_tokens: 100 + (n += 7), output_tokens: 10 },
      }),
    });
    t.teardown(() => llm.close());
    const { node, bus } = await startBusNode(t);
    const put = await call(node.url, 'PUT', '/config', {
      name: 'Acme',
      timezone: 'Australia/Sydney',
      token_budget: 100_000,
      providers: { llm: { main: { type: 'anthropic', model: 'claude-r', base_url: llm.baseUrl, api_keys: ['sk-r'] } }, llm_order: ['main'] }, // prettier-ignore
      roles: [{ name: 'Ada', token_budget: 50_000 }, { name: 'Bob' }],
    });
    t.equal(put.status, 201, JSON.stringify(put.body));
    await node.run.waitForLog((l) => l.msg === 'seat spawned' && l['seat'] === 'bob');
    // Five turns for Ada (more than the boot seed's three), one for Bob, one after another.
    for (const [seat, i] of [
      ['ada', 1],
      ['ada', 2],
      ['bob', 1],
      ['ada', 3],
      ['ada', 4],
      ['ada', 5],
    ] as const) {
      const wake = mentionWake(`${seat} task ${i}`);
      await queueWake(bus, seat, wake);
      await until(
        async () =>
          (await (await fetch(`${node.url}/events/trace/${wake.trace_id}`)).json()) as { events?: Loose[] },
        (r) => (r.events ?? []).some((e) => e['type'] === 'agent_turn_completed'),
        30_000,
      );
    }
    const read = async (url: string, path: string) => (await call(url, 'GET', path)).body;
    // Live: wait until the rollup counted all 18 calls (the projection follows the stream).
    await until(
      () => read(node.url, '/tokens/breakdown'),
      (b) => (b['totals'] as Loose)['calls'] === 18,
      10_000,
    );
    const live = new Map<string, Loose>();
    for (const path of reads) live.set(path, await read(node.url, path));

    for (const checkpoints of [true, false]) {
      node.run.kill('SIGTERM');
      await node.run.exited;
      // Without the checkpoints the read models replay the streams from zero.
      if (!checkpoints)
        for (const file of readdirSync(join(node.dir, 'data')).filter((f) =>
          f.startsWith('projections.sqlite'),
        ))
          rmSync(join(node.dir, 'data', file));
      const again = await serveAgain(t, node);
      for (const path of reads)
        t.same(
          await read(node.url, path),
          live.get(path),
          `${path}: the same after a restart${checkpoints ? '' : ' from zero'}`,
        );
      Object.assign(node.run, again);
    }
  },
);
