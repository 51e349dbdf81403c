/**
 * Seat activity on a served node (spec "Seat kind and seat activity"): `/agents` reads `working` while a
 * turn runs, then `stopped` with the reason that holds — `budget` after a turn spent past the seat's cap,
 * `provider` after the provider chain failed, `paused` while paused — and `idle` with a null reason
 * otherwise; every row carries exactly one of the spec's reasons or null. A stop clears when its cause
 * goes: a cap raised past what was spent, a provider that answers the next turn.
 */
import t from 'tap';
import { startLlmServer } from '../fixtures/llm/llm-server.js';
import { call } from '../harness/api.js';
import { startBusNode } from '../harness/bus-node.js';
import { mentionWake, queueWake } from '../harness/wake.js';
import { reading, rowOf, rows } from './fixtures/seat-rows.js';

t.test(
  'a served seat reads working, then stopped for budget, provider or pause, then idle once the cause goes',
  async (t) => {
    const big = { prompt_tokens: 4000, completion_tokens: 100 };
    // Ada's turn is held mid-plan (working), then skips having spent past her cap.
    const spender = await startLlmServer({
      wire: 'openai',
      script: [{ kind: 'text', text: '{"decision":"skip"}', usage: big, hold: 'plan' }],
    });
    t.teardown(() => spender.close());
    // Bob's provider never answers: the chain fails by its timeout.
    const silent = await startLlmServer({
      wire: 'openai',
      script: [{ kind: 'text', text: '{"decision":"skip"}', hold: 'never' }],
    });
    t.teardown(() => silent.close());
    // The provider Bob is moved to once his own failed: it answers.
    const answerer = await startLlmServer({
      wire: 'openai',
      script: [{ kind: 'text', text: '{"decision":"skip"}' }],
    });
    t.teardown(() => answerer.close());
    const { node, bus } = await startBusNode(t);

    const put = await call(node.url, 'PUT', '/config', {
      name: 'Acme',
      providers: {
        llm: {
          spender: { type: 'openai-compatible', model: 'm-1', base_url: spender.baseUrl },
          silent: { type: 'openai-compatible', model: 'm-2', base_url: silent.baseUrl, timeout_seconds: 1 },
          answerer: { type: 'openai-compatible', model: 'm-3', base_url: answerer.baseUrl },
        },
        llm_order: ['spender'],
      },
      roles: [
        { name: 'Ada', token_budget: 1000 },
        { name: 'Bob', llm: 'silent' },
        { name: 'Cy' },
        { name: 'Hu', kind: 'human', contact: { operator_id: 'ops' } },
      ],
    });
    t.equal(put.status, 201, JSON.stringify(put.body));
    await node.run.waitForLog((l) => l.msg === 'config applied');
    t.same(
      (await rows(node)).map((r) => [r.id, r.activity, r.stopped_reason]),
      [
        ['ada', 'idle', null],
        ['bob', 'idle', null],
        ['cy', 'idle', null],
      ],
      'a placed seat with nothing to do is idle, with a null reason',
    );

    await queueWake(bus, 'ada', mentionWake('Spend'));
    await spender.waitForRequests(1);
    t.match(await reading(node, 'ada', 'working', null), { activity: 'working', stopped_reason: null });
    spender.release('plan');
    t.ok(await reading(node, 'ada', 'stopped', 'budget'), 'spent past her cap: stopped / budget');

    await queueWake(bus, 'bob', mentionWake('Ask the silent provider'));
    t.ok(await reading(node, 'bob', 'stopped', 'provider'), 'the chain failed: stopped / provider');

    // The causes go: Ada's cap is raised past what she spent; Bob's next turn has a provider that answers.
    t.equal(
      (await call(node.url, 'PUT', '/config/roles/ada', { name: 'Ada', token_budget: 1_000_000 })).status,
      201,
    );
    t.ok(await reading(node, 'ada', 'idle', null), 'the cap raised: idle, the budget stop cleared');
    t.equal((await call(node.url, 'PUT', '/config/roles/bob', { name: 'Bob', llm: 'answerer' })).status, 201);
    await node.run.waitForLog((l) => l.msg === 'config applied' && l['epoch'] === 3);
    t.match(await rowOf(node, 'bob'), { stopped_reason: 'provider' }, 'a new pin alone clears nothing');
    await queueWake(bus, 'bob', mentionWake('Ask the answering provider'));
    await answerer.waitForRequests(1);
    t.ok(await reading(node, 'bob', 'idle', null), 'a provider answered: idle, the provider stop cleared');

    t.equal((await call(node.url, 'POST', '/agents/cy/pause', { reason: 'maintenance' })).status, 200);
    t.match(await reading(node, 'cy', 'stopped', 'paused'), { paused: { by: 'ops', reason: 'maintenance' } });
    t.equal((await call(node.url, 'POST', '/agents/cy/resume', {})).status, 200);
    t.match(await reading(node, 'cy', 'idle', null), { paused: null });

    const reasons = new Set([null, 'paused', 'unplaced', 'budget', 'provider']);
    for (const row of await rows(node)) {
      t.ok(reasons.has(row.stopped_reason), `${row.id}: a reason of the spec`);
      t.equal(
        row.stopped_reason === null,
        row.activity !== 'stopped',
        `${row.id}: a reason only when stopped`,
      );
    }
  },
);
