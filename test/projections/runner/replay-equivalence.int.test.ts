/**
 * Every projection the runner keeps gives the same answer however it got there (DESIGN.md "Projections"):
 * a projection that followed the live tail, one resumed from its checkpoint plus the tail, and one replayed
 * from zero agree. The events and read-model projections have their own tests of this
 * (runner.int.test.ts, readmodels.replay.int.test.ts); here are config, schedules, secrets and integrations.
 */
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import t, { type Test } from 'tap';
import { activePointerKey, configSubjects } from '../../../actors/index.js';
import {
  ensureCatalogue,
  publishEvent,
  Streams,
  Subjects,
  type Bus,
  type Kv,
  newEvent,
} from '../../../bus/index.js';
import {
  activationHistory,
  activeRevision,
  arrivalsOf,
  configProjection,
  integrationsProjection,
  listPassRuns,
  listRevisions,
  listSecrets,
  openCheckpoints,
  recentRuns,
  runProjection,
  schedulesProjection,
  secretRecord,
  secretsProjection,
  type AnyProjection,
  type CheckpointStore,
  type ConfigState,
  type IntegrationsState,
  type RunningProjection,
  type SchedulesState,
  type SecretsState,
} from '../../../projections/index.js';
import { EventCategory, type LedgerRow } from '../../../schema/index.js';
import { eventBus, tempDir } from '../fixtures/events.js';

const enc = new TextEncoder();
const json = (value: unknown): Uint8Array => enc.encode(JSON.stringify(value));
const silent = pino({ level: 'silent' });

interface Case<S> {
  /** A fresh projection (a config projection holds closures, so each run gets its own). */
  readonly make: (bus: Bus, kv: Kvs) => AnyProjection<S>;
  /** Writes round `round` of history. */
  readonly write: (bus: Bus, kv: Kvs, round: number) => Promise<void>;
  /** Everything the read model answers. */
  readonly answer: (state: S) => unknown;
  /** True once the state reflects every write so far. */
  readonly caughtUp: (state: S, rounds: number) => boolean;
  readonly checkpointed: boolean;
}

interface Kvs {
  readonly coord: Kv;
  readonly secrets: Kv;
}

async function openKvs(bus: Bus): Promise<Kvs> {
  const { coord, secrets } = await ensureCatalogue(bus);
  return { coord, secrets };
}

async function start<S>(
  t: Test,
  bus: Bus,
  projection: AnyProjection<S>,
  checkpoints?: CheckpointStore,
): Promise<RunningProjection<S>> {
  const running = await runProjection({
    bus,
    projection,
    logger: silent,
    ...(checkpoints ? { checkpoints } : {}),
  });
  t.teardown(() => running.stop());
  return running;
}

async function proveEquivalent<S>(t: Test, c: Case<S>): Promise<void> {
  const dir = tempDir(t);
  const bus = await eventBus(t, `${dir}/bus`);
  const kv = await openKvs(bus);
  const checkpoints = openCheckpoints(`${dir}/projections`);
  t.teardown(() => checkpoints.close());

  await c.write(bus, kv, 0);
  await c.write(bus, kv, 1);
  const live = await start(t, bus, c.make(bus, kv), checkpoints);
  t.equal(live.boot.from, 'zero');
  await c.write(bus, kv, 2);
  await c.write(bus, kv, 3);
  t.ok(await live.when((s) => c.caughtUp(s, 4), 5000), 'the live tail is followed');
  const replayed = await start(t, bus, c.make(bus, kv));
  t.same(c.answer(live.state()), c.answer(replayed.state()), 'boot replay plus live tail = replay from zero');
  await live.stop();
  await replayed.stop();

  await c.write(bus, kv, 4);
  const resumed = await start(t, bus, c.make(bus, kv), checkpoints);
  t.equal(resumed.boot.from, c.checkpointed ? 'checkpoint' : 'zero');
  const fresh = await start(t, bus, c.make(bus, kv));
  t.ok(await resumed.when((s) => c.caughtUp(s, 5), 5000));
  t.ok(await fresh.when((s) => c.caughtUp(s, 5), 5000));
  t.same(
    c.answer(resumed.state()),
    c.answer(fresh.state()),
    'checkpoint (or boot) plus tail = replay from zero',
  );

  await resumed.rebuild();
  t.same(c.answer(resumed.state()), c.answer(fresh.state()), 'a rebuild gives the same answer');
  if (c.checkpointed) t.equal(resumed.boot.from, 'zero', 'a rebuild replays from zero');
}

// ---------------------------------------------------------------- config

const ids = Array.from({ length: 5 }, () => randomUUID());
const configCase: Case<ConfigState> = {
  make: (bus, kv) =>
    configProjection(
      {
        bus,
        coord: kv.coord,
        stream: Streams.Config,
        subjects: configSubjects,
        activeKey: activePointerKey,
        logger: silent,
      },
      { activated: () => undefined, settled: () => undefined },
    ),
  write: async (bus, kv, round) => {
    const id = ids[round]!;
    const parent = round === 0 ? null : ids[round - 1]!;
    await bus.publish(
      configSubjects.revisionStored,
      json({
        revision_id: id,
        parent_revision_id: parent,
        created_at: new Date(Date.UTC(2026, 0, 1, round)).toISOString(),
        created_by: 'ops',
        created_by_kind: 'operator',
        source: 'api',
        summary: `round ${round}`,
        payload: { name: `round ${round}` },
      }),
    );
    // Round 3 is stored but never activated: a revision on the shelf.
    if (round === 3) return;
    const pointer = {
      revision_id: id,
      parent_revision_id: parent,
      epoch: round + 1,
      activated_at: new Date(Date.UTC(2026, 0, 1, round, 1)).toISOString(),
    };
    await kv.coord.put(activePointerKey, json(pointer));
    await bus.publish(configSubjects.revisionActivated, json(pointer));
  },
  answer: (s) => ({
    active: activeRevision(s),
    revisions: listRevisions(s, { limit: 50, offset: 0 }),
    history: activationHistory(s),
  }),
  caughtUp: (s, rounds) =>
    s.revisions.size === rounds && s.active?.revision_id === ids[rounds === 4 ? 2 : rounds - 1],
  checkpointed: false,
};

// ---------------------------------------------------------------- schedules

const row = (n: number): LedgerRow => ({
  scope_type: 'unit',
  scope_id: 'Engineering',
  schedule_name: `s${n % 3}`,
  target_handle: 'alice',
  scheduled_at: new Date(Date.UTC(2026, 0, 5, 8, n)).toISOString(),
  fired_at: new Date(Date.UTC(2026, 0, 5, 8, n)).toISOString(),
  outcome: 'fired',
});
const schedulesCase: Case<SchedulesState> = {
  make: () => schedulesProjection(7),
  write: async (bus, _kv, round) => {
    for (let i = 0; i < 4; i += 1) {
      // Rows arrive out of order of firing, and the limit (7) drops the oldest.
      const n = round * 4 + ((i * 3) % 4);
      await publishEvent(
        bus,
        newEvent({
          type: 'schedule_fired',
          category: EventCategory.System,
          source: 'node-0/scheduler',
          summary: 'fired',
          actor: 'scheduler',
          payload: row(n),
        }),
      );
    }
    await publishEvent(
      bus,
      newEvent({
        type: 'agent_paused',
        category: EventCategory.Lifecycle,
        source: 'n',
        summary: 'x',
        actor: 'system',
      }),
    );
  },
  answer: (s) => recentRuns(s),
  caughtUp: (s, rounds) => s.runs[0]?.row.fired_at === row(rounds * 4 - 1).fired_at,
  checkpointed: false,
};

// ---------------------------------------------------------------- secrets

const secret = (name: string, round: number) => ({
  v: 1,
  name,
  key_id: 'k1',
  updated_at: new Date(Date.UTC(2026, 0, 1, round)).toISOString(),
  updated_by: 'ops',
  source: 'api',
  sealed: `enc:v1:k1:${Buffer.from(`${name}-${round}`).toString('base64')}`,
});
const secretsCase: Case<SecretsState> = {
  make: (_bus, kv) => secretsProjection(kv.secrets),
  write: async (_bus, kv, round) => {
    await kv.secrets.put(`S${round}`, json(secret(`S${round}`, round)));
    await kv.secrets.put('SHARED', json(secret('SHARED', round)));
    if (round === 2) await kv.secrets.delete('S0');
    if (round === 3) await kv.secrets.put('BROKEN', enc.encode('not json'));
  },
  answer: (s) => ({ list: listSecrets(s), shared: secretRecord(s, 'SHARED'), gone: secretRecord(s, 'S0') }),
  caughtUp: (s, rounds) => secretRecord(s, `S${rounds - 1}`) !== null,
  checkpointed: false,
};

// ---------------------------------------------------------------- integrations

const integrationsCase: Case<IntegrationsState> = {
  make: () => integrationsProjection,
  write: async (bus, _kv, round) => {
    const at = (s: number) => new Date(Date.UTC(2026, 0, 1, round, 0, s)).toISOString();
    const arrival = (outcome: string, s: number) => ({
      type: 'arrival',
      surface: 'tracker-a',
      outcome,
      at: at(s),
      node: 'n1',
    });
    await bus.publish(Subjects.integration('tracker-a', 'arrival'), json(arrival('accepted', 1)));
    await bus.publish(
      Subjects.integration('tracker-a', 'arrival'),
      json(arrival(round % 2 ? 'refused' : 'duplicate', 2)),
    );
    const run = `run-${round}`;
    const base = { kind: 'tracker-b', mode: 'check', node: 'n1', actor: 'op' };
    await bus.publish(
      Subjects.integration('tracker-b', 'pass_started'),
      json({ type: 'pass_started', run_id: run, ...base, started_at: at(3) }),
    );
    // The last round's pass is still running.
    if (round === 4) return;
    await bus.publish(
      Subjects.integration('tracker-b', 'pass_finished'),
      json({
        type: 'pass_finished',
        run: {
          id: run,
          ...base,
          started_at: at(3),
          finished_at: at(4),
          status: 'succeeded',
          reason: null,
          steps: [],
        },
      }),
    );
  },
  answer: (s) => ({
    arrivals: arrivalsOf(s, 'tracker-a'),
    runs: listPassRuns(s, 'tracker-b', { limit: 50 }),
    started: [...s.started.keys()],
  }),
  caughtUp: (s, rounds) =>
    s.started.has(`run-${rounds - 1}`) || s.runs.get('tracker-b')?.[0]?.id === `run-${rounds - 1}`,
  checkpointed: true,
};

t.test('config: live tail, replay from zero and rebuild agree', (t) => proveEquivalent(t, configCase));
t.test('schedules: live tail, replay from zero and rebuild agree', (t) => proveEquivalent(t, schedulesCase));
t.test('secrets: live changes, a fresh read of the bucket and rebuild agree', (t) =>
  proveEquivalent(t, secretsCase),
);
t.test('integrations: checkpoint plus tail, replay from zero and rebuild agree', (t) =>
  proveEquivalent(t, integrationsCase),
);
