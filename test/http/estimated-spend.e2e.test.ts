/**
 * Spend a provider's cut stream left estimated (`estimated: true`, ops/providers.md "Usage") is counted in
 * every spend read, and each read says how much of its figure is estimated (`estimated_tokens`, 0 when
 * none): `/tokens/breakdown`, `/tokens/series`, `/budgets`, and the live window (`tokens` in the snapshot
 * and its push, `budget` beside it, the seat's row), over a real listener and socket.
 */
import t, { type Test } from 'tap';
import { readModelRoutes, readQuestions } from '../../http/index.js';
import { ReadModels } from '../../projections/index.js';
import { companyDoc, spend } from '../projections/fixtures/readmodels.js';
import { dashboard, startEventsNode } from './fixtures/events-node.js';
import { call } from './fixtures/gateway-harness.js';

const now = Date.parse('2026-11-23T12:00:00Z');

async function served(t: Test) {
  const models = new ReadModels({ now: () => now, placed: () => true });
  models.setCompany(companyDoc, 'rev-1');
  const node = await startEventsNode(t, {
    questions: readQuestions(models),
    routes: (q) => readModelRoutes(q),
  });
  for (const section of models.sections()) node.events.sections.register(section);
  const get = async (path: string): Promise<Record<string, unknown>> => {
    const res = await call(`${node.h.base}${path}`);
    t.equal(res.status, 200, path);
    return res.json!;
  };
  return { models, get, ws: node.ws };
}

/** 15 tokens reported and 100 estimated, both the CTO's, in the last hours. */
function spent(models: ReadModels): void {
  models.applySpend(spend({ timestamp: '2026-11-23T10:00:00Z', total_tokens: 15 }));
  models.applySpend(
    spend({ timestamp: '2026-11-23T11:00:00Z', phase: 'execute', total_tokens: 100, estimated: true }),
  );
}

t.test('GET /tokens/breakdown says how much of each figure is estimated', async (t) => {
  const { models, get } = await served(t);
  t.match((await get('/tokens/breakdown'))['totals'], { total_tokens: 0, estimated_tokens: 0 }, 'none: 0');
  spent(models);
  const body = await get('/tokens/breakdown');
  t.match(body, {
    totals: { total_tokens: 115, estimated_tokens: 100, calls: 2 },
    by_phase: [
      { phase: 'execute', estimated_tokens: 100 },
      { phase: 'plan', estimated_tokens: 0 },
    ],
    by_agent: [{ handle: 'cto', estimated_tokens: 100, by_phase: { execute: { estimated_tokens: 100 } } }],
    by_turn: [{ turn_id: 'turn-1', estimated_tokens: 100 }],
  });
});

t.test('GET /tokens/series says it per bucket', async (t) => {
  const { models, get } = await served(t);
  spent(models);
  const buckets = (await get('/tokens/series?buckets=2'))['buckets'] as Array<Record<string, unknown>>;
  t.match(buckets, [
    { total_tokens: 0, estimated_tokens: 0 },
    { label: '2026-11-23', total_tokens: 115, estimated_tokens: 100 },
  ]);
});

t.test('GET /budgets says it per meter', async (t) => {
  const { models, get } = await served(t);
  spent(models);
  const body = await get('/budgets');
  t.match(body['org'], { used: 115, estimated_tokens: 100 });
  const seats = body['seats'] as Array<Record<string, unknown>>;
  t.match(
    seats.find((s) => s['handle'] === 'cto'),
    { used: 115, estimated_tokens: 100 },
  );
  t.match(
    seats.find((s) => s['handle'] === 'dev-one'),
    { used: 0, estimated_tokens: 0 },
  );
});

t.test(
  'the live window says it in the snapshot and in its push, with the budget and the seat row',
  async (t) => {
    const { models, get, ws } = await served(t);
    const d = await dashboard(`${ws}/ws/stream`);
    t.teardown(() => d.client.close());
    await d.next((f) => f.kind === 'snapshot');
    spent(models);
    models.tick();
    t.match((await d.next((f) => f.kind === 'tokens')).data, {
      totals: { total_tokens: 115, estimated_tokens: 100 },
      by_agent: [{ handle: 'cto', estimated_tokens: 100 }],
    });
    t.match((await d.next((f) => f.kind === 'budget')).data, { used: 115, estimated_tokens: 100 });
    const snapshot = await get('/stream/snapshot');
    t.match(snapshot['tokens'], { totals: { estimated_tokens: 100 } });
    t.match(snapshot['budget'], { estimated_tokens: 100 });
    t.match((await get('/agents/cto'))['tokens'], { total_tokens: 115, estimated_tokens: 100 });
    t.match((await get('/agents/cto'))['budget'], { seat: { estimated_tokens: 100 } });
  },
);
