import t from 'tap';
import type { Test } from 'tap';
import { ensureCatalogue, openMemoryBus, Subjects, type Bus } from '../../../bus/index.js';
import {
  openCheckpoints,
  readModelProjections,
  ReadModels,
  runProjection,
  type CheckpointStore,
} from '../../../projections/index.js';
import type { EventRecord, SpendRecord } from '../../../schema/index.js';
import { tempDir } from '../fixtures/events.js';
import {
  companyDoc,
  event,
  phaseCompleted,
  phaseStarted,
  spend,
  turnCompleted,
} from '../fixtures/readmodels.js';

const now = Date.parse('2026-11-23T12:00:00Z');
const at = (minutes: number): string => new Date(now - 3 * 3600_000 + minutes * 60_000).toISOString();
const encode = (o: unknown) => new TextEncoder().encode(JSON.stringify(o));

async function publishEvents(bus: Bus, events: EventRecord[]): Promise<void> {
  for (const e of events) await bus.publish(Subjects.event(e.type), encode(e), { msgId: e.id });
}

async function publishSpend(bus: Bus, records: SpendRecord[]): Promise<void> {
  for (const r of records) await bus.publish(Subjects.spend('llm'), encode(r), { msgId: r.id });
}

/** Five turns of the CTO (the boot keeps phase records of the newest three), memory and sandbox runs. */
function history(from: number, turns: number): EventRecord[] {
  const out: EventRecord[] = [];
  for (let k = from; k < from + turns; k += 1) {
    const turn = `turn-${k}`;
    out.push(event('agent_phase_started', 'cto', phaseStarted(turn, 'plan', 0, at(k * 10)), at(k * 10)));
    out.push(
      event('agent_phase_completed', 'cto', phaseCompleted(turn, 'plan', at(k * 10 + 1)), at(k * 10 + 1)),
    );
    out.push(event('agent_turn_completed', 'cto', turnCompleted(turn, at(k * 10 + 2)), at(k * 10 + 2)));
    out.push(
      event(
        'memory_remembered',
        'cto',
        { memory_id: `m-${k}`, kind: 'long', ttl_until: null, content_chars: 7, turn_id: turn },
        at(k * 10 + 3),
      ),
    );
  }
  out.push(
    event(
      'sandbox_run_started',
      undefined,
      {
        turn_id: `turn-${from}`,
        role: 'Dev One',
        agent_handle: 'dev-one',
        agent_id: 'x',
        coding_agent: 'coder',
        sandbox_id: `sb-${from}`,
        task: 'fix',
        status: 'running',
        started_at: at(from * 10),
        question: null,
        audience: null,
        work_item: null,
        owner: null,
        paused_at: null,
      },
      at(from * 10),
    ),
  );
  return out;
}

function spending(from: number, count: number): SpendRecord[] {
  return Array.from({ length: count }, (_, i) =>
    spend({
      id: `spend-replay-${from + i}`,
      timestamp: at((from + i) * 3),
      phase: i % 2 === 0 ? 'plan' : 'execute',
      total_tokens: 10 + i,
    }),
  ).concat([
    spend({ id: `spend-ahead-${from}`, timestamp: new Date(now + 3600_000).toISOString(), total_tokens: 7 }),
    spend({ id: `spend-undated-${from}`, timestamp: 'not a time', total_tokens: 3 }),
    spend({
      id: `spend-old-${from}`,
      timestamp: new Date(now - 3 * 86_400_000).toISOString(),
      total_tokens: 5,
    }),
  ]);
}

async function boot(t: Test, bus: Bus, checkpoints?: CheckpointStore) {
  const models = new ReadModels({ now: () => now });
  models.setCompany(companyDoc, 'rev-1');
  const projections = readModelProjections(models, () => now);
  const opts = { bus, ...(checkpoints ? { checkpoints } : {}) };
  const events = await runProjection({ ...opts, projection: projections.agents });
  const memory = await runProjection({ ...opts, projection: projections.memory });
  const sandboxes = await runProjection({ ...opts, projection: projections.sandboxes });
  const spent = await runProjection({ ...opts, projection: projections.tokens });
  const window = await runProjection({ ...opts, projection: projections.spendWindow });
  const stop = async () => {
    for (const r of [events, memory, sandboxes, spent, window]) await r.stop();
  };
  t.teardown(stop);
  return { models, events, spent, window, stop };
}

/** Every read-model answer a route gives, as JSON. */
async function answers(models: ReadModels) {
  const q = new URLSearchParams();
  return JSON.parse(
    JSON.stringify({
      agents: models.agentList(),
      cto: models.agent('cto'),
      memory: await models.memoryOf('cto'),
      activity: models.activity(q),
      breakdown: models.tokenBreakdown(q),
      series: models.tokenSeries(q),
      budgets: models.budgets(),
      window: models.window.summary(),
      sandboxes: models.sandboxRuns(),
      sections: models.sections().map((s) => [s.name, s.current()]),
    }),
  ) as Record<string, unknown>;
}

t.test('read models: replay from zero and checkpoint plus tail give identical answers', async (t) => {
  const bus = await openMemoryBus({});
  await ensureCatalogue(bus);
  t.teardown(() => bus.close());
  const checkpoints = openCheckpoints(tempDir(t));
  t.teardown(() => checkpoints.close());

  await publishEvents(bus, history(0, 3));
  await publishSpend(bus, spending(0, 20));
  const first = await boot(t, bus, checkpoints);
  t.equal(first.spent.boot.from, 'zero');
  await first.stop();
  t.ok(checkpoints.load('readmodels.tokens'), 'the token ledger saved a checkpoint');
  t.ok(checkpoints.load('readmodels.spend_window'), 'the spend window saved its own checkpoint');
  for (const name of ['readmodels.agents', 'readmodels.memory', 'readmodels.sandboxes'])
    t.equal(checkpoints.load(name), null, `${name} keeps none (see readmodels.boot.ts)`);

  // The tail: more turns (older phase records now fall outside the newest three), more spend.
  await publishEvents(bus, history(3, 3));
  await publishSpend(bus, spending(20, 20));

  const resumed = await boot(t, bus, checkpoints);
  t.equal(resumed.spent.boot.from, 'checkpoint');
  t.equal(resumed.spent.boot.replayed, 23, 'only the tail was replayed');
  t.equal(resumed.window.boot.from, 'checkpoint');
  t.equal(resumed.window.boot.replayed, 23, 'the window too replayed only the tail');
  t.equal(resumed.events.boot.from, 'zero');
  const fresh = await boot(t, bus);
  t.equal(fresh.spent.boot.from, 'zero');

  const a = await answers(resumed.models);
  const b = await answers(fresh.models);
  t.same(a, b);
  // The answers hold what was published, so a difference would show.
  t.equal((b['window'] as { records: number }).records, 44, 'dated in the window, stamped ahead and undated');
  t.equal(
    (b['cto'] as { llm_history: unknown[] }).llm_history.length,
    3,
    'phase records of the newest three turns',
  );
  t.equal((b['sandboxes'] as { runs: unknown[] }).runs.length, 2);
});

t.test('a token-ledger checkpoint of another version is ignored; the window keeps its own', async (t) => {
  const bus = await openMemoryBus({});
  await ensureCatalogue(bus);
  t.teardown(() => bus.close());
  const checkpoints = openCheckpoints(tempDir(t));
  t.teardown(() => checkpoints.close());
  await publishSpend(bus, spending(100, 5));
  const first = await boot(t, bus, checkpoints);
  await first.stop();
  const saved = checkpoints.load('readmodels.tokens')!;
  checkpoints.save({ ...saved, version: saved.version + 1, state: { records: [] } });
  const again = await boot(t, bus, checkpoints);
  t.equal(again.spent.boot.from, 'zero', 'the ledger replays from zero');
  t.equal(again.window.boot.from, 'checkpoint', 'the window keeps its own checkpoint');
  t.equal(again.models.window.size, 7);
});
