/**
 * A node's boot reads each stream once for every projection that follows it: the read models of
 * SVC_EVENTS (agents, memory, sandboxes, and the events index beside them) and of SVC_SPEND (tokens, the
 * spend window) are fed from one ordered read per stream, and answer exactly what one read each gives.
 * The figure (records read, boot time) is printed as a comment; SHARED_REPLAY_EVENTS sets the history size.
 */
import { performance } from 'node:perf_hooks';
import t, { type Test } from 'tap';
import {
  ensureCatalogue,
  openMemoryBus,
  Subjects,
  type Bus,
  type StoredMessage,
} from '../../../bus/index.js';
import {
  eventsProjection,
  openCheckpoints,
  readModelProjections,
  ReadModels,
  runProjection,
  runProjectionsShared,
  type AnyProjection,
  type CheckpointStore,
  type RunningProjection,
} from '../../../projections/index.js';
import {
  companyDoc,
  event,
  phaseCompleted,
  phaseStarted,
  spend,
  turnCompleted,
} from '../fixtures/readmodels.js';
import { tempDir } from '../fixtures/events.js';

const N = Number(process.env['SHARED_REPLAY_EVENTS'] ?? 2_000);
const now = Date.parse('2026-11-23T12:00:00Z');
const at = (minutes: number): string => new Date(now - 3 * 3600_000 + minutes * 1000).toISOString();
const encode = (o: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(o));

/** The bus as it is, with every record a replay hands over counted. */
function counting(bus: Bus): { bus: Bus; read: () => number } {
  let read = 0;
  const replay = (stream: string, opts?: Parameters<Bus['replay']>[1]): AsyncIterable<StoredMessage> => ({
    async *[Symbol.asyncIterator]() {
      for await (const message of bus.replay(stream, opts)) {
        read += 1;
        yield message;
      }
    },
  });
  return {
    bus: new Proxy(bus, {
      get: (target, key) => (key === 'replay' ? replay : (Reflect.get(target, key) as unknown)),
    }),
    read: () => read,
  };
}

async function history(bus: Bus, events: number, from = 0): Promise<void> {
  const pending: Array<Promise<unknown>> = [];
  for (let k = from; k < from + events / 4; k += 1) {
    const turn = `turn-${k}`;
    const records = [
      event('agent_phase_started', 'cto', phaseStarted(turn, 'plan', 0, at(k * 4)), at(k * 4)),
      event('agent_phase_completed', 'cto', phaseCompleted(turn, 'plan', at(k * 4 + 1)), at(k * 4 + 1)),
      event('agent_turn_completed', 'cto', turnCompleted(turn, at(k * 4 + 2)), at(k * 4 + 2)),
      event('memory_remembered', 'cto', { memory_id: `m-${k}`, kind: 'long', ttl_until: null, content_chars: 7, turn_id: turn }, at(k * 4 + 3)), // prettier-ignore
    ];
    for (const e of records) pending.push(bus.publish(Subjects.event(e.type), encode(e), { msgId: e.id }));
    const s = spend({ id: `spend-${k}`, timestamp: at(k * 4), total_tokens: 10 + k });
    pending.push(bus.publish(Subjects.spend('llm'), encode(s), { msgId: s.id }));
    if (pending.length >= 500) await Promise.all(pending.splice(0));
  }
  await Promise.all(pending);
}

/** The read models and the events index a node boots, one runner each or shared. */
async function boot(t: Test, bus: Bus, shared: boolean, checkpoints?: CheckpointStore) {
  const models = new ReadModels({ now: () => now });
  models.setCompany(companyDoc, 'rev-1');
  const projections: Array<AnyProjection<unknown>> = [
    eventsProjection,
    ...readModelProjections(models, () => now).all,
  ];
  const opts = { bus, ...(checkpoints ? { checkpoints } : {}) };
  const started = performance.now();
  let running: Array<RunningProjection<unknown>> = [];
  if (shared) running = await runProjectionsShared({ ...opts, projections });
  else for (const projection of projections) running.push(await runProjection({ ...opts, projection }));
  const ms = performance.now() - started;
  const stop = async (): Promise<void> => {
    for (const r of running.splice(0)) await r.stop();
  };
  t.teardown(stop);
  return { models, running, ms, stop };
}

const answers = async (models: ReadModels, running: Array<RunningProjection<unknown>>) => {
  const q = new URLSearchParams();
  return JSON.parse(
    JSON.stringify({
      agents: models.agentList(),
      cto: models.agent('cto'),
      memory: await models.memoryOf('cto'),
      activity: models.activity(q),
      breakdown: models.tokenBreakdown(q),
      budgets: models.budgets(),
      window: models.window.summary(),
      sections: models.sections().map((s) => [s.name, s.current()]),
      seqs: running.map((r) => [r.name, r.seq()]),
      events: (running[0]?.state() as { index: { size: number } } | undefined)?.index.size,
    }),
  ) as unknown;
};

t.test(
  'a boot reads SVC_EVENTS and SVC_SPEND once for all their read models, with the same answers',
  async (t) => {
    const raw = await openMemoryBus({});
    await ensureCatalogue(raw);
    t.teardown(() => raw.close());
    await history(raw, N);
    const spendRecords = N / 4;

    const alone = counting(raw);
    const one = await boot(t, alone.bus, false);
    const together = counting(raw);
    const all = await boot(t, together.bus, true);

    t.comment(
      `${N} events + ${spendRecords} spend records: one read per projection ${alone.read()} records in ${one.ms.toFixed(0)} ms; shared ${together.read()} records in ${all.ms.toFixed(0)} ms`,
    );
    t.equal(
      alone.read(),
      4 * N + 2 * spendRecords,
      'each of four event and two spend projections read its stream',
    );
    // Plus one record per seeding bound resolved to a sequence (the two streams' bounds).
    t.ok(together.read() <= N + spendRecords + 2 * 4, 'shared: each stream read once');
    t.same(await answers(all.models, all.running), await answers(one.models, one.running));
    t.same(
      all.running.map((r) => r.name),
      one.running.map((r) => r.name),
      'handles come back in the order given',
    );
  },
);

t.test('resumed from checkpoints, the shared boot reads only what some projection lacks', async (t) => {
  const raw = await openMemoryBus({});
  await ensureCatalogue(raw);
  t.teardown(() => raw.close());
  const checkpoints = openCheckpoints(tempDir(t));
  t.teardown(() => checkpoints.close());
  await history(raw, 400);
  const first = await boot(t, raw, true, checkpoints);
  await first.stop();
  await history(raw, 40);
  const resumed = counting(raw);
  const again = await boot(t, resumed.bus, true, checkpoints);
  t.equal(again.running[0]?.boot.from, 'checkpoint', 'the events index resumed from its checkpoint');
  t.equal(again.running[0]?.boot.replayed, 40);
  const fresh = await boot(t, raw, false);
  t.same(await answers(again.models, again.running), await answers(fresh.models, fresh.running));
});

/** The bus as it is, with the follows it opened counted per stream and their live ones tracked. */
function followCounting(bus: Bus): { bus: Bus; opened: Map<string, number>; live: () => number } {
  const opened = new Map<string, number>();
  let live = 0;
  const follow: Bus['follow'] = async (stream, opts, onMessage) => {
    opened.set(stream, (opened.get(stream) ?? 0) + 1);
    const sub = await bus.follow(stream, opts, onMessage);
    live += 1;
    return { stop: async () => ((live -= 1), await sub.stop()) };
  };
  return {
    bus: new Proxy(bus, {
      get: (target, key) => (key === 'follow' ? follow : (Reflect.get(target, key) as unknown)),
    }),
    opened,
    live: () => live,
  };
}

/**
 * The answers of a node that folded records live, set against a fresh boot's: the agent's detail is left
 * out, since a boot keeps only its latest turn's phases there while a live fold keeps them until they age.
 */
const liveAnswers = async (models: ReadModels, running: Array<RunningProjection<unknown>>) => {
  const { cto: _cto, ...rest } = (await answers(models, running)) as Record<string, unknown>;
  return rest;
};

/** Resolves once every projection folded its stream up to its last record. */
async function caughtUp(bus: Bus, running: Array<RunningProjection<unknown>>): Promise<void> {
  const last = new Map<string, number>();
  for (const r of running) {
    const stream =
      r.name === 'readmodels.tokens' || r.name === 'readmodels.spend_window'
        ? 'SVC_SPEND'
        : r.name === 'readmodels.seat_needs'
          ? 'SVC_SEATS'
          : 'SVC_EVENTS';
    last.set(r.name, (await bus.streamInfo(stream)).lastSeq);
  }
  while (running.some((r) => r.seq() < (last.get(r.name) ?? 0)))
    await new Promise((resolve) => setImmediate(resolve));
}

t.test(
  'after a shared boot each stream is followed once, and what arrives live reaches every projection',
  async (t) => {
    const raw = await openMemoryBus({});
    await ensureCatalogue(raw);
    t.teardown(() => raw.close());
    await history(raw, 40);
    const counted = followCounting(raw);
    const all = await boot(t, counted.bus, true);
    t.same(
      Object.fromEntries(counted.opened),
      { SVC_EVENTS: 1, SVC_SPEND: 1, SVC_SEATS: 1 },
      'one follow per stream for its four and two projections (and the seat logs, read alone)',
    );
    await history(raw, 40, 10);
    await caughtUp(raw, all.running);
    const fresh = await boot(t, raw, false);
    t.same(await liveAnswers(all.models, all.running), await liveAnswers(fresh.models, fresh.running));

    // One rebuilt on its own read leaves the shared tail; both keep being fed.
    const tokens = all.running.find((r) => r.name === 'readmodels.tokens');
    await tokens?.rebuild();
    t.equal(counted.opened.get('SVC_SPEND'), 2, 'the rebuilt one follows on its own');
    await history(raw, 40, 20);
    await caughtUp(raw, all.running);
    const later = await boot(t, raw, false);
    t.same(await liveAnswers(all.models, all.running), await liveAnswers(later.models, later.running));

    await all.stop();
    t.equal(counted.live(), 0, 'every follow ends when its projections stop');
  },
);
