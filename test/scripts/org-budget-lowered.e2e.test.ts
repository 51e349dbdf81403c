/**
 * The org `token_budget` lowered below what the month already spent, on a served node (spec `token_budget`,
 * 0 = unlimited; ops/turn-engine.md "Budgets"): every agent seat reads stopped / budget — one that spent
 * nothing, and one whose own cap is far above the org's, alike — `/budgets`, each `/agents` meter and the
 * snapshot's `budget` and `org` sections say the same, and a wake is refused before any model call. Raised to
 * 0 or removed, the seats read idle again and a wake runs.
 */
import t from 'tap';
import { startLlmServer } from '../fixtures/llm/llm-server.js';
import { call, type Json } from '../harness/api.js';
import { startBusNode } from '../harness/bus-node.js';
import { until } from '../harness/until.js';
import { mentionWake, queueWake } from '../harness/wake.js';
import { reading, rows } from './fixtures/seat-rows.js';

type Meter = { cap: number; used: number; refused: boolean };

t.test(
  'an org cap lowered below the month spent stops every seat; set to 0 or removed, they run again',
  async (t) => {
    const llm = await startLlmServer({
      wire: 'openai',
      script: () => ({
        kind: 'text',
        text: '{"decision":"skip"}',
        usage: { prompt_tokens: 4000, completion_tokens: 100 },
      }),
    });
    t.teardown(() => llm.close());
    const { node, bus } = await startBusNode(t);
    const doc = (budget: number | undefined): Json => ({
      name: 'Acme',
      ...(budget === undefined ? {} : { token_budget: budget }),
      providers: { llm: { main: { type: 'openai-compatible', model: 'm', base_url: llm.baseUrl } } },
      units: [
        {
          name: 'Eng',
          type: 'department',
          lead: 'Hu',
          roles: [{ name: 'Hu', kind: 'human', contact: { operator_id: 'ops' } }, { name: 'Ada' }],
          children: [{ name: 'Core', type: 'team', roles: [{ name: 'Bob', token_budget: 1_000_000_000 }] }],
        },
      ],
    });
    const apply = async (budget: number | undefined, epoch: number): Promise<void> => {
      const put = await call(node.url, 'PUT', '/config', doc(budget));
      t.equal(put.status, 201, JSON.stringify(put.body));
      await node.run.waitForLog((l) => l.msg === 'config applied' && l['epoch'] === epoch);
    };
    await apply(1_000_000, 1);

    await queueWake(bus, 'ada', mentionWake('Spend'));
    const spent = await until(
      async () => (await call(node.url, 'GET', '/budgets')).body as { org: Meter },
      (b) => b.org.used >= 4100,
    );
    t.equal(spent.org.used, 4100, 'Ada spent 4,100 tokens this month');
    t.ok(await reading(node, 'ada', 'idle', null), 'under the cap: idle');

    await apply(1000, 2);
    for (const id of ['ada', 'bob']) {
      t.ok(await reading(node, id, 'stopped', 'budget'), `${id}: stopped / budget under the lowered org cap`);
    }
    const budgets = (await call(node.url, 'GET', '/budgets')).body as {
      org: Meter;
      seats: Array<Meter & { handle: string }>;
      refused: string[];
    };
    t.match(budgets.org, { cap: 1000, used: 4100, refused: true }, '/budgets: the org meter is refused');
    t.same(budgets.refused, ['org'], '/budgets names the org, and no seat, as refused');
    t.same(
      budgets.seats.map((s) => s.handle).sort(),
      ['ada', 'bob'],
      '/budgets lists the agent seats, not the human one',
    );
    for (const row of (await rows(node)) as unknown as Array<{ id: string; budget: Json }>) {
      t.match(
        row.budget,
        { org: { cap: 1000, used: 4100, refused: true }, refused: 'org' },
        `${row.id}: the /agents meter agrees with /budgets`,
      );
    }
    const snap = (await call(node.url, 'GET', '/stream/snapshot')).body as {
      budget: Meter;
      org: { token_budget: number };
    };
    t.match(snap.budget, { cap: 1000, used: 4100, refused: true }, 'the snapshot budget section agrees');
    t.equal(snap.org.token_budget, 1000, 'the snapshot org section carries the lowered cap');

    const before = llm.requests.length;
    const refusedWake = mentionWake('Bob, while the org is over its cap');
    await queueWake(bus, 'bob', refusedWake);
    const trace = await until(
      async () =>
        (await call(node.url, 'GET', `/events/trace/${refusedWake.trace_id}`)).body as {
          events?: Array<{ type: string; payload?: Json }>;
        },
      (r) => (r.events ?? []).some((e) => e.type === 'agent_turn_completed'),
    );
    t.match(
      trace.events?.find((e) => e.type === 'budget_exhausted')?.payload,
      { scope: 'org', cap: 1000 },
      "Bob's wake is refused for the org's cap, though his own is far above it",
    );
    t.equal(llm.requests.length, before, 'no model call was made');

    await apply(0, 3);
    for (const id of ['ada', 'bob'])
      t.ok(await reading(node, id, 'idle', null), `${id}: 0 is unlimited, idle`);
    t.same((await call(node.url, 'GET', '/budgets')).body['refused'], [], 'nothing refused at 0');
    await queueWake(bus, 'bob', mentionWake('Bob, now unlimited'));
    await llm.waitForRequests(before + 1);
    t.pass('a wake runs again once the cap is 0');

    await apply(1000, 4);
    t.ok(await reading(node, 'ada', 'stopped', 'budget'), 'lowered again: stopped');
    await apply(undefined, 5);
    for (const id of ['ada', 'bob']) t.ok(await reading(node, id, 'idle', null), `${id}: no cap, idle`);
    const absent = await until(
      async () => (await call(node.url, 'GET', '/budgets')).body as { org: Meter },
      (b) => b.org.used === 8200,
    );
    t.match(absent.org, { cap: 0, remaining: null, ratio: null, refused: false }, 'an absent cap reads as 0');
  },
);
