/**
 * One turn's spend read three ways on a built `svc serve`: the seat's `/agents/{id}` row (`last_turn`,
 * `llm_history`, `tokens`, budget meter), `/tokens/breakdown` (`by_turn`, `by_agent`) and `/budgets`. A turn
 * whose answer is cut mid-stream cost tokens (counted as an estimate, ops/providers.md "Usage"): every read
 * says the same figure for it.
 */
import t from 'tap';
import { startLlmServer } from '../fixtures/llm/llm-server.js';
import { startBusNode } from '../harness/bus-node.js';
import { TOKEN } from '../harness/serve-node.js';
import { until } from '../harness/until.js';
import { mentionWake, queueWake } from '../harness/wake.js';

type Loose = Record<string, unknown>;
type Row = Loose & { total_tokens: number };

t.test(
  'a turn cut mid-answer reads the same tokens on /agents, /tokens/breakdown and /budgets',
  async (t) => {
    let n = 0;
    const llm = await startLlmServer({
      wire: 'openai',
      // The first turn runs whole; the second's execute answer is cut after some text, before its usage.
      script: () =>
        (n += 1) === 5
          ? { kind: 'truncate', text: 'half an answer, then the connection goes' }
          : {
              kind: 'text',
              text: '{"verdict":"done","notes":"ok"}',
              usage: { prompt_tokens: 200, completion_tokens: 20 },
            },
    });
    t.teardown(() => llm.close());
    const { node, bus } = await startBusNode(t);
    const put = await fetch(`${node.url}/config`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'x-summary': 'spend' },
      body: JSON.stringify({
        name: 'Acme',
        timezone: 'Pacific/Auckland',
        token_budget: 1_000_000,
        providers: { llm: { main: { type: 'openai', model: 'gpt-r', base_url: llm.baseUrl, api_keys: ['sk-r'] } }, llm_order: ['main'] }, // prettier-ignore
        roles: [{ name: 'Bob', token_budget: 500_000 }],
      }),
    });
    t.equal(put.status, 201, await put.clone().text());
    await node.run.waitForLog((l) => l.msg === 'seat spawned' && l['seat'] === 'bob');
    const read = async (path: string): Promise<Loose> =>
      (await (
        await fetch(`${node.url}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } })
      ).json()) as Loose;
    for (const i of [1, 2]) {
      const wake = mentionWake(`bob task ${i}`);
      await queueWake(bus, 'bob', wake);
      await until(
        () => read(`/events/trace/${wake.trace_id}`),
        (r) => ((r['events'] as Loose[] | undefined) ?? []).some((e) => e['type'] === 'agent_turn_completed'),
        30_000,
      );
    }
    // Five calls: three whole, then the second turn's plan and its cut execute (counted as an estimate).
    const breakdown = await until(
      () => read('/tokens/breakdown'),
      (b) => (b['totals'] as Loose)['calls'] === 5,
      10_000,
    );
    const agent = await until(
      () => read('/agents/bob'),
      (a) => (a['tokens'] as Loose)['calls'] === 5,
      10_000,
    );
    const budgets = await read('/budgets');

    const lastTurn = agent['last_turn'] as Loose & { turn_id: string; total_tokens: number; failed: boolean };
    t.equal(lastTurn.failed, true, 'the cut turn failed');
    const turnRow = (breakdown['by_turn'] as (Row & { turn_id: string })[]).find(
      (r) => r.turn_id === lastTurn.turn_id,
    );
    t.ok(turnRow, 'the cut turn has its by_turn row');
    const phases = turnRow!['by_phase'] as Record<string, Row>;
    t.ok(phases['execute']!.total_tokens > 0, 'the cut execute answer cost tokens');
    t.equal(
      lastTurn.total_tokens,
      turnRow!.total_tokens,
      "last_turn.total_tokens is the turn's by_turn total",
    );
    const history = agent['llm_history'] as (Row & { turn_id: string; phase: string; failed?: boolean })[];
    const cutPhase = history.find((r) => r.turn_id === lastTurn.turn_id && r.phase === 'execute');
    t.equal(cutPhase?.failed, true, 'the execute phase reads failed');
    t.equal(
      cutPhase?.total_tokens,
      phases['execute']!.total_tokens,
      "the failed phase's row says what it cost",
    );

    // The seat's totals agree across the three reads.
    const seatTotal = (breakdown['by_agent'] as (Row & { handle: string })[]).find(
      (r) => r.handle === 'bob',
    )!;
    t.equal((agent['tokens'] as Row).total_tokens, seatTotal.total_tokens, '/agents tokens = by_agent');
    const seatMeter = (budgets['seats'] as (Loose & { handle: string; used: number })[]).find(
      (s) => s.handle === 'bob',
    )!;
    t.equal(seatMeter.used, seatTotal.total_tokens, '/budgets seat used = by_agent');
    t.equal(((agent['budget'] as Loose)['seat'] as Loose)['used'], seatMeter.used, 'agent meter = /budgets');
    t.equal(
      (budgets['org'] as Loose)['used'],
      (breakdown['totals'] as Row).total_tokens,
      'org used = totals',
    );
  },
);
