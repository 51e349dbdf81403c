/**
 * Spec "Ordering and projection rules" and DESIGN "Projections" (replay from zero gives the same answer) on a
 * real `svc serve` over a real nats-server: the read models a node built live — `/agents`, `/agents/{id}`,
 * `/events` and a trace, the token rollup, budgets and the memory view — read the same after a kill -9 and a
 * restart, and again after a kill -9 with the projection checkpoints deleted. A failed phase (the provider
 * down) is part of the history, so the failure's traces (`llm_unavailable`, `last_error`) are replayed too.
 * Each turn's trace is in causal order; every stored event and usage record delivered a second time, newest
 * first, counts once in the rollup, the budgets and the rows, live and after a replay from zero.
 */
import t, { type Test } from 'tap';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { startLlmServer } from '../fixtures/llm/llm-server.js';
import { call } from '../harness/api.js';
import { startBusNode } from '../harness/bus-node.js';
import { serveAgain } from '../harness/serve-node.js';
import { until } from '../harness/until.js';
import { mentionWake, queueWake } from '../harness/wake.js';

type Loose = Record<string, unknown>;
const read = async (url: string, path: string): Promise<Loose> => (await call(url, 'GET', path)).body;

/**
 * The snapshot's read-model sections up to `cut`: health is the process's own (uptime, clients), the token
 * window's `since` is the serving clock's, and a start records its own apply (`ConfigRevisionApplied`) after it.
 */
async function snapshot(url: string, cut: string): Promise<Loose> {
  const { health: _h, events, tokens, ...rest } = await read(url, '/stream/snapshot');
  const { since: _s, ...window } = tokens as Loose;
  const before = (events as Loose[]).filter((e) => Date.parse(String(e['timestamp'])) < Date.parse(cut));
  return { ...rest, events: before, tokens: window };
}

/** Distinct turn ids of an `llm_history`, newest first. */
const turnsOf = (detail: Loose): string[] => [
  ...new Set((detail['llm_history'] as Loose[]).map((r) => String(r['turn_id']))),
];

/** A seat's detail as the boot seed keeps it: phase records of the newest three turns (spec rule 2). */
function seeded(detail: Loose): Loose {
  const newest = turnsOf(detail).slice(0, 3);
  const history = (detail['llm_history'] as Loose[]).filter((r) => newest.includes(String(r['turn_id'])));
  return { ...detail, llm_history: history };
}

t.test(
  'the read models a node built live read the same after kill -9 and after a replay from zero',
  async (t) => {
    const outer = t;
    let n = 0;
    let down = false;
    const llm = await startLlmServer({
      wire: 'anthropic',
      // Each call spends differently, so a turn mixed up with another shows; `down` fails every call.
      script: () =>
        down
          ? { kind: 'status', status: 400, body: '{"type":"error","error":{"type":"invalid_request_error","message":"no"}}' } // prettier-ignore
          : { kind: 'text', text: '{"verdict":"done","notes":"ok"}', usage: { input_tokens: 100 + (n += 7), output_tokens: 10 } }, // prettier-ignore
    });
    t.teardown(() => llm.close());
    const { node, bus } = await startBusNode(t);
    const put = await call(node.url, 'PUT', '/config', {
      name: 'Acme',
      timezone: 'UTC',
      token_budget: 100_000,
      providers: { llm: { main: { type: 'anthropic', model: 'claude-r', base_url: llm.baseUrl, api_keys: ['sk-r'] } }, llm_order: ['main'] }, // prettier-ignore
      roles: [{ name: 'Ada', token_budget: 50_000 }, { name: 'Bob' }],
    });
    t.equal(put.status, 201, JSON.stringify(put.body));
    await node.run.waitForLog((l) => l.msg === 'seat spawned' && l['seat'] === 'bob');
    const traces: string[] = [];
    for (const [seat, i, fail] of [
      ['ada', 1, false],
      ['bob', 1, false],
      ['ada', 2, false],
      ['bob', 2, true],
      ['ada', 3, false],
      ['ada', 4, false],
    ] as const) {
      down = fail;
      const wake = mentionWake(`${seat} task ${i}`);
      traces.push(wake.trace_id);
      await queueWake(bus, seat, wake);
      await until(
        () => read(node.url, `/events/trace/${wake.trace_id}`),
        (r) => ((r['events'] as Loose[] | undefined) ?? []).some((e) => e['type'] === 'agent_turn_completed'),
        30_000,
      );
    }
    down = false;
    const failedTrace = await read(node.url, `/events/trace/${traces[3]}`);
    const types = (failedTrace['events'] as Loose[]).map((e) => e['type']);
    t.ok(types.includes('agent_phase_completed'), `the failed turn's trace: ${types.join(', ')}`);

    const cutAt = new Date().toISOString();
    const cut = `before_time=${cutAt}&before_id=${'f'.repeat(8)}-ffff-ffff-ffff-${'f'.repeat(12)}`;
    const paths = [
      '/agents',
      '/agents/ada/memory',
      '/agents/bob/memory',
      // Events stamped before the kill: the next start records its own apply after it.
      ...['', '&limit=5', '&feed_only=true', '&category=lifecycle', '&category=learning'].map(
        (q) => `/events?${cut}${q}`,
      ),
      ...traces.map((id) => `/events/trace/${id}`),
      '/tokens/breakdown',
      '/tokens/breakdown?agent_role=ada&recent_turns=3',
      '/tokens/series',
      '/budgets',
    ];
    // Live: wait until the projections followed the stream to its end (the rollup counts every call).
    const settled = async () => JSON.stringify(await Promise.all(paths.map((p) => read(node.url, p))));
    let last = '';
    await until(settled, (s) => {
      const same = s === last;
      last = s;
      return same;
    }, 10_000); // prettier-ignore
    const live = new Map<string, Loose>();
    for (const path of paths) live.set(path, await read(node.url, path));
    const feed = live.get(`/events?${cut}`)?.['rows'] as Loose[];
    t.ok(feed.length >= 30, `the live feed holds the turns' events (${feed.length} rows)`);
    // Event record rules: a failure type reads failed, listings carry no payload, stream-only and
    // accounting types are never in the feed.
    t.ok(
      feed.some((e) => e['type'] === 'llm_unavailable'),
      'the provider failure is recorded',
    );
    for (const e of feed) {
      if (e['type'] === 'llm_unavailable') t.equal(e['failed'], true, 'llm_unavailable reads failed');
      t.notOk('payload' in e, `${String(e['type'])}: no payload in a listing`);
      t.notOk(['agent_turn_progress', 'auxiliary_spend'].includes(String(e['type'])), 'not a feed type');
    }
    const bobRow = (live.get('/agents') as unknown as Loose[]).find((r) => r['id'] === 'bob');
    t.match(
      bobRow?.['last_error'],
      { source: 'agent_turn_completed' },
      "the failed turn's cause is Bob's last_error",
    );
    let snapCut = cutAt;
    const liveSnapshot = await snapshot(node.url, snapCut);
    const liveDetail = { ada: await read(node.url, '/agents/ada'), bob: await read(node.url, '/agents/bob') };
    t.equal(turnsOf(liveDetail.ada).length, 4, "live, Ada's history holds her four turns");

    /** Kills the node outright and starts it again on its store, then compares every read with the live one. */
    const restartAndCompare = async (t: Test, checkpoints: boolean, label: string) => {
      node.run.kill('SIGKILL');
      await node.run.exited;
      // Without the checkpoints the read models replay the streams from zero.
      if (!checkpoints)
        for (const file of readdirSync(join(node.dir, 'data')).filter((f) => f.startsWith('projections')))
          rmSync(join(node.dir, 'data', file));
      // The process outlives this subtest: the next ones read from it.
      const again = await serveAgain(outer, node);
      for (const path of paths) t.same(await read(node.url, path), live.get(path), `${path}: ${label}`);
      t.same(await snapshot(node.url, snapCut), liveSnapshot, `/stream/snapshot: ${label}`);
      for (const seat of ['ada', 'bob'] as const)
        t.same(
          await read(node.url, `/agents/${seat}`),
          seeded(liveDetail[seat]),
          `/agents/${seat}: ${label}`,
        );
      Object.assign(node.run, again);
    };

    await t.test('the read models read the same after kill -9 and after a replay from zero', async (t) => {
      await restartAndCompare(t, true, 'after kill -9');
      await restartAndCompare(t, false, 'after kill -9 and a replay from zero');
    });

    await t.test("per seat, a turn's events come in causal order in its own trace", async (t) => {
      for (const id of traces) {
        const events = (await read(node.url, `/events/trace/${id}`))['events'] as Loose[];
        const stamps = events.map((e) => Date.parse(String(e['timestamp'])));
        t.same(
          stamps,
          [...stamps].sort((a, b) => a - b),
          `${id}: oldest first`,
        );
        t.ok(
          events.every((e) => e['trace_id'] === id),
          `${id}: every event carries the wake's trace`,
        );
        const turn = events.filter((e) => String(e['type']).startsWith('agent_'));
        t.equal(turn[0]?.['type'], 'agent_phase_started', `${id}: the turn opens with a phase start`);
        t.equal(turn.at(-1)?.['type'], 'agent_turn_completed', `${id}: and ends with its completion`);
        t.equal(new Set(turn.map((e) => e['agent_id'])).size, 1, `${id}: one seat's turn`);
      }
    });

    await t.test('duplicate and out-of-order deliveries of stored events and spend count once', async (t) => {
      // Every stored event and usage record delivered again, newest first, as a redelivery would.
      let copies = 0;
      for (const stream of ['SVC_EVENTS', 'SVC_SPEND']) {
        const stored = [];
        for await (const m of bus.replay(stream)) stored.push(m);
        for (const m of stored.reverse()) {
          const ack = await bus.publish(m.subject, m.data);
          if (!ack.duplicate) copies += 1;
        }
      }
      t.ok(copies > 50, `${copies} copies stored`);
      // Bob's next turn is stored after the copies on both streams: once it is counted, so are they.
      const liveTotals = live.get('/tokens/breakdown')!['totals'] as Loose;
      const marker = mentionWake('after the copies');
      await queueWake(bus, 'bob', marker);
      const turn = await until(
        () => read(node.url, `/events/trace/${marker.trace_id}`),
        (r) => ((r['events'] as Loose[] | undefined) ?? []).some((e) => e['type'] === 'agent_turn_completed'),
        30_000,
      );
      const completed = (turn['events'] as Loose[]).find((e) => e['type'] === 'agent_turn_completed')!;
      const spent = Number((completed['payload'] as Loose)['total_tokens']);
      const totals = await until(
        async () => (await read(node.url, '/tokens/breakdown'))['totals'] as Loose,
        (x) => x['calls'] === Number(liveTotals['calls']) + 3,
        10_000,
      );
      t.equal(
        totals['total_tokens'],
        Number(liveTotals['total_tokens']) + spent,
        'the rollup adds the new turn only',
      );
      for (const path of paths.filter((p) => p.startsWith('/events') || p.includes('ada')))
        t.same(await read(node.url, path), live.get(path), `${path}: the copies changed nothing`);
      // Ada's row, but for the org-wide meter it carries (Bob's new turn spends on it).
      const adaRow = (rows: Loose | undefined) => {
        const row = (rows as unknown as Loose[]).find((r) => r['id'] === 'ada') as Loose;
        const { org: _o, ...own } = row['budget'] as Loose;
        return { ...row, budget: own };
      };
      t.same(adaRow(await read(node.url, '/agents')), adaRow(live.get('/agents')), "Ada's row: unchanged");
      const used = (b: Loose | undefined, seat?: string) =>
        Number(
          (seat
            ? ((b?.['seats'] as Loose[]).find((r) => r['handle'] === seat) as Loose)
            : (b?.['org'] as Loose))['used'],
        );
      const budgets = await read(node.url, '/budgets');
      t.equal(used(budgets, 'ada'), used(live.get('/budgets'), 'ada'), "Ada's spend: unchanged");
      t.equal(
        used(budgets, 'bob'),
        used(live.get('/budgets'), 'bob') + spent,
        "Bob's spend: his new turn's only",
      );
      t.equal(used(budgets), used(live.get('/budgets')) + spent, "the org's spend: Bob's new turn's only");

      // A replay from zero over a stream holding the copies gives what the node counted live.
      for (const path of paths) live.set(path, await read(node.url, path));
      liveDetail.ada = await read(node.url, '/agents/ada');
      liveDetail.bob = await read(node.url, '/agents/bob');
      snapCut = new Date().toISOString();
      Object.assign(liveSnapshot, await snapshot(node.url, snapCut));
      await restartAndCompare(t, false, 'after the copies, a kill -9 and a replay from zero');
    });
  },
);
