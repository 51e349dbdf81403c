/**
 * `auxiliary_spend` counts in spend once: an auxiliary worker's call recorded through
 * `recordAuxiliarySpend` moves `/tokens/breakdown` (totals, `by_phase.auxiliary`, `by_worker`, `by_agent`),
 * the live window (`tokens` section, the seat's row), `/budgets` and the budget the turn engine checks; a repeat
 * counts nothing more; a boot from the streams gives the same answers; the event is stored but never a feed
 * row nor an `event` frame.
 */
import t, { type Test } from 'tap';
import { pino } from 'pino';
import { createBudget, recordAuxiliarySpend } from '../../actors/index.js';
import {
  ensureCatalogue,
  openMemoryBus,
  publishEvent,
  Streams,
  type Bus,
  newEvent,
} from '../../bus/index.js';
import { queryRoutes, readModelRoutes, readQuestions } from '../../http/index.js';
import {
  readModelProjections,
  ReadModels,
  runProjection,
  type RunningProjection,
} from '../../projections/index.js';
import { startEvents } from '../../scripts/events-wiring.js';
import { companyDoc } from '../projections/fixtures/readmodels.js';
import { dashboard } from './fixtures/events-node.js';
import { call, startHarness } from './fixtures/gateway-harness.js';

const cto = { handle: 'cto', agent_id: 'agent-cto', role: 'CTO' };
/** One clock for both boots, a minute ahead of the records, so their answers compare exactly. */
const now = Date.now() + 60_000;

/** The read models booted from the bus through the runner, as `svc serve` boots them. */
async function bootModels(t: Test, bus: Bus) {
  const models = new ReadModels({ nodeId: 'node-0', now: () => now });
  models.setCompany(companyDoc, 'rev-1');
  const projections = readModelProjections(models, () => now);
  const running: Array<RunningProjection<unknown>> = [];
  for (const projection of projections.all) running.push(await runProjection({ bus, projection }));
  // The ledger's runner: its sequence says when the spend records are folded.
  const spent = running[projections.all.indexOf(projections.tokens)]!;
  t.teardown(async () => {
    for (const r of running) await r.stop();
  });
  return { models, spent };
}

async function startNode(t: Test) {
  const bus = await openMemoryBus();
  await ensureCatalogue(bus);
  const events = await startEvents({
    bus,
    node: 'node-0',
    historySeconds: 30 * 86_400,
    health: () => ({ status: 'ok' }),
    logger: pino({ level: 'silent' }),
    healthIntervalMs: 60_000,
  });
  const { models, spent } = await bootModels(t, bus);
  events.addQuestions(readQuestions(models));
  for (const section of models.sections()) events.sections.register(section);
  const h = await startHarness({
    routes: [...events.routes(), ...readModelRoutes(events.questions), ...queryRoutes(events.questions)],
    stream: events.hub,
  });
  t.teardown(async () => {
    await h.gw.close();
    await events.stop();
    await bus.close();
  });
  const budget = createBudget({ bus, timezone: () => 'Europe/Berlin' });
  t.teardown(() => budget.stop());
  return { bus, events, models, spent, h, budget, ws: h.base.replace('http:', 'ws:') };
}

/** A route's JSON answer, read as the type its answer function returns. */
const json = async <T>(url: string): Promise<T> => (await call(url)).json as T;
type Rows = { rows: Array<{ id: string; type: string }> };

t.test('an auxiliary call moves the rollup, the live window and the budgets, once', async (t) => {
  const { bus, events, models, spent, h, budget, ws } = await startNode(t);
  const d = await dashboard(`${ws}/ws/stream`);
  t.teardown(() => d.client.close());
  await d.next((f) => f.kind === 'snapshot');

  const deps = { bus, node: 'node-0', budget };
  const first = await recordAuxiliarySpend(deps, {
    worker: 'persist_decider',
    provider: 'main',
    model: 'gpt-main',
    input_tokens: 100,
    output_tokens: 50,
    cache_read_tokens: 20,
    seat: cto,
    turn_id: 'turn-9',
  });
  await recordAuxiliarySpend(deps, {
    worker: 'skill_synthesizer',
    provider: 'main',
    model: 'gpt-mini',
    input_tokens: 30,
    output_tokens: 10,
  });
  // A retried record (same id) is stored once on each stream and counted once.
  await recordAuxiliarySpend(deps, {
    worker: 'persist_decider',
    provider: 'main',
    model: 'gpt-main',
    input_tokens: 100,
    output_tokens: 50,
    cache_read_tokens: 20,
    seat: cto,
    turn_id: 'turn-9',
    id: first.id,
    at: new Date(first.timestamp),
  });
  // A feed event after them: the first `event` frame must be this one.
  const task = newEvent({
    type: 'TaskCreated',
    category: 'task',
    source: 't',
    summary: 'x',
    actor: 'system',
  });
  await publishEvent(bus, task);
  t.equal(
    (await d.next((f) => f.kind === 'event')).data.id,
    task.id,
    'auxiliary_spend is never an event frame',
  );
  t.ok(await spent.until(2, 30_000), 'two spend records stored');
  t.ok(await events.projection.until(3, 30_000), 'two auxiliary_spend events and the task stored');
  t.equal((await bus.streamInfo(Streams.Spend)).messages, 2, 'the repeat was not stored again');

  const breakdown = await json<ReturnType<ReadModels['tokenBreakdown']>>(`${h.base}/tokens/breakdown`);
  t.match(breakdown.totals, { input_tokens: 130, output_tokens: 60, total_tokens: 190, calls: 2 });
  t.match(breakdown.by_phase, [{ phase: 'auxiliary', total_tokens: 190, calls: 2 }]);
  t.same(
    breakdown.by_worker.map((w) => [w.worker, w.total_tokens]),
    [
      ['persist_decider', 150],
      ['skill_synthesizer', 40],
    ],
  );
  t.same(
    breakdown.by_agent.map((a) => [a.handle, a.total_tokens]),
    [['cto', 150]],
    'only spend that names a seat is an agent row',
  );
  t.match(breakdown.by_agent[0]?.by_phase['auxiliary'], { total_tokens: 150, calls: 1 });
  t.match(breakdown.by_turn, [{ turn_id: 'turn-9', handle: 'cto', total_tokens: 150 }]);

  const series = await json<{ bands: string[] }>(`${h.base}/tokens/series?band=agent`);
  t.same(series.bands, ['cto', '(no seat)'], 'spend on no seat is banded apart, never as a handle');

  const budgets = await json<ReturnType<ReadModels['budgets']>>(`${h.base}/budgets`);
  t.equal(budgets.org.used, 190, 'the org meter counts every auxiliary call');
  t.equal(budgets.seats.find((s) => s.handle === 'cto')?.used, 150);
  t.match(await budget.check('cto', { org: 0, seat: 150 }), { scope: 'seat', used: 150 });
  t.equal(await budget.check('cto', { org: 0, seat: 151 }), null, 'the repeat added nothing to the counter');
  t.match(
    await budget.check('cto', { org: 190, seat: 0 }),
    { scope: 'org', used: 190 },
    'the shared org counter counts the call on no seat too',
  );
  t.equal(await budget.check('cto', { org: 191, seat: 0 }), null);

  t.match(
    (await json<{ tokens: unknown }>(`${h.base}/agents/cto`)).tokens,
    { total_tokens: 150, calls: 1 },
    'the live window',
  );
  models.tick();
  const snapshot = await json<
    { tokens: ReturnType<ReadModels['window']['summary']> } & { events: Rows['rows'] }
  >(`${h.base}/stream/snapshot`);
  t.match(snapshot.tokens, { records: 2, totals: { total_tokens: 190 } });
  t.same(
    snapshot.tokens.by_agent.map((a) => a.handle),
    ['cto'],
  );
  t.notOk(
    snapshot.events.some((e) => e.type === 'auxiliary_spend'),
    'not in the snapshot feed',
  );

  const listed = await json<Rows>(`${h.base}/events`);
  const spends = listed.rows.filter((e) => e.type === 'auxiliary_spend');
  t.equal(spends.length, 2, 'stored once per call');
  t.ok(
    spends.some((e) => e.id === first.id),
    'the event carries the record id',
  );
  const feed = await json<Rows>(`${h.base}/events?feed_only=true`);
  t.notOk(
    feed.rows.some((e) => e.type === 'auxiliary_spend'),
    'never a feed row',
  );
  t.match((await json<{ payload: unknown }>(`${h.base}/events/${first.id}`)).payload, {
    worker: 'persist_decider',
    model: 'gpt-main',
    total_tokens: 150,
    handle: 'cto',
  });

  // A boot from the streams answers the same.
  const q = new URLSearchParams({ since_days: '7' });
  const again = await bootModels(t, bus);
  t.same(again.models.tokenBreakdown(q), models.tokenBreakdown(q), 'the rollup survives a replay');
  t.same(again.models.budgets(), models.budgets());
  t.same(again.models.window.summary(), models.window.summary());
  t.same(
    again.models.tokenSeries(new URLSearchParams({ band: 'agent' })),
    models.tokenSeries(new URLSearchParams({ band: 'agent' })),
  );
});
