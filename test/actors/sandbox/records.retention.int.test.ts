/**
 * How long run records are kept (ops/sandboxes.md "The run record"): an ended run 30 days after its end,
 * then it is gone from every node's memory and from the stream; a live run is never dropped, however long
 * it sits still, since its supervisor stores it again daily — unless its node left the fleet and stored
 * nothing of it for 30 days: it then ends as lost and ages out like any ended run. Time is the records' and
 * supervisor's clock.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import t, { type Test } from 'tap';
import { openSandboxRecords } from '../../../actors/index.js';
import { endLostRuns, type LostRun } from '../../../actors/sandbox/sandbox.lost.js';
import { ensureCatalogue, openMemoryBus, Streams, Subjects, type Bus } from '../../../bus/index.js';
import type { SandboxRunRecord } from '../../../schema/index.js';
import { killGroupsOf, pidsRunning } from '../../harness/proc.js';
import { until } from '../../harness/until.js';
import { launchOf, superviseLocally } from './local-supervisor.js';
import { aRun } from './runs.fixture.js';

const logger = pino({ level: 'silent' });
const DAY = 24 * 3_600_000;
const T0 = Date.parse('2026-06-01T00:00:00.000Z');
const iso = (ms: number): string => new Date(ms).toISOString();

const runOf = (id: string, status: SandboxRunRecord['status'], at: number): SandboxRunRecord =>
  aRun({
    sandbox_id: id,
    status,
    started_at: iso(at),
    updated_at: iso(at),
    // Another node's: nothing here watches them.
    node: 'node-9',
    token_sha256: id.padEnd(64, '0').replace(/[^0-9a-f]/g, '0'),
  });

async function openBus(tt: Test): Promise<Bus> {
  const bus = await openMemoryBus();
  await ensureCatalogue(bus);
  tt.teardown(() => bus.close());
  return bus;
}

/** The run ids the stream still holds a record of. */
async function inStream(bus: Bus): Promise<string[]> {
  const ids = new Set<string>();
  for await (const msg of bus.replay(Streams.Sandbox)) ids.add(msg.subject.split('.').pop() ?? '');
  return [...ids].sort();
}

t.test('after a boot an ended run past 30 days is gone; a live one and a recent end are kept', async (tt) => {
  const bus = await openBus(tt);
  const clock = { ms: T0 };
  const now = (): Date => new Date(clock.ms);
  const writer = await openSandboxRecords({ bus, node: 'node-9', logger, now });
  await writer.put(runOf('sb-old', 'running', T0 - 40 * DAY));
  await writer.put(runOf('sb-old', 'done', T0 - 31 * DAY));
  await writer.put(runOf('sb-recent', 'running', T0 - 2 * DAY));
  await writer.put(runOf('sb-recent', 'failed', T0 - DAY));
  // Last, as its supervisor's daily store leaves it: the stream is trimmed below a run's newest record only.
  await writer.put(runOf('sb-live', 'running', T0 - 60 * DAY));
  await writer.stop();
  tt.same(await inStream(bus), ['sb-live', 'sb-old', 'sb-recent'], 'every run is in the stream before');

  const booted = await openSandboxRecords({ bus, node: 'node-0', logger, now });
  tt.teardown(() => booted.stop());
  tt.equal(booted.get('sb-old'), undefined, 'the run ended 31 days ago is not in memory');
  tt.same(
    booted
      .all()
      .map((r) => `${r.sandbox_id}:${r.status}`)
      .sort(),
    ['sb-live:running', 'sb-recent:failed'],
    'the live run (60 days still) and the one ended yesterday are kept',
  );
  tt.same(await inStream(bus), ['sb-live', 'sb-recent'], 'the old run’s records left the stream');

  clock.ms = T0 + 30 * DAY;
  await booted.prune();
  tt.same(
    booted.all().map((r) => r.sandbox_id),
    ['sb-live'],
    'a running node drops a run once its 30 days are over',
  );
  tt.same(await inStream(bus), ['sb-live'], 'and the stream with it');
});

t.test('a live run that sits still for a month is stored again daily and survives the trim', async (tt) => {
  const bus = await openBus(tt);
  const root = mkdtempSync(join(tmpdir(), 'svc-retention-'));
  tt.teardown(() => rmSync(root, { recursive: true, force: true, maxRetries: 5 }));
  const clock = { ms: T0 };
  const now = (): Date => new Date(clock.ms);
  const records = await openSandboxRecords({ bus, node: 'node-0', logger, now });
  tt.teardown(() => records.stop());
  const supervisor = superviseLocally({ bus, records, root, logger, now });
  tt.teardown(() => supervisor.stop());
  const argv = ['sleep', String(15_000 + Math.floor(Math.random() * 3_000))];
  tt.teardown(() => killGroupsOf(argv));
  await supervisor.launch(launchOf('sb-still', argv.join(' ')));
  const first = (await bus.streamInfo(Streams.Sandbox)).lastSeq;
  for (let day = 1; day <= 31; day++) {
    clock.ms = T0 + day * DAY + 60_000;
    await until(
      () => Promise.resolve(records.storedAt('sb-still') ?? 0),
      (at) => at >= clock.ms,
      { timeoutMs: 10_000, everyMs: 10 },
    );
  }
  await records.prune();
  const info = await bus.streamInfo(Streams.Sandbox);
  tt.ok(info.firstSeq > first, `the launch's records were trimmed (first ${info.firstSeq}, launch ${first})`);
  const booted = await openSandboxRecords({ bus, node: 'node-1', logger, now });
  tt.teardown(() => booted.stop());
  tt.equal(booted.get('sb-still')?.status, 'running', 'a node booting now still finds the live run');
});

/** Subjects the stream `name` holds a message on. */
async function subjectsIn(bus: Bus, name: string): Promise<string[]> {
  const subjects: string[] = [];
  for await (const msg of bus.replay(name)) subjects.push(msg.subject);
  return subjects;
}

/**
 * Another node's live runs as a seats node finds them at a clock `afterDays` past their records: `ids` run
 * by `node-9`, `node-8`, ... in order, stored on the stream (its own clock) before the node opens them.
 */
async function othersRuns(tt: Test, ids: readonly [string, string][], afterDays: number) {
  const bus = await openBus(tt);
  for (const [id, node] of ids) {
    const writer = await openSandboxRecords({ bus, node, logger });
    await writer.put({ ...runOf(id, 'running', T0), node });
    await writer.stop();
  }
  const clock = { ms: 0 };
  const now = (): Date => new Date(clock.ms);
  const records = await openSandboxRecords({ bus, node: 'node-0', logger, now });
  tt.teardown(() => records.stop());
  const storedAt = records.storedAt(ids[0]?.[0] ?? '') ?? 0;
  clock.ms = storedAt + afterDays * DAY;
  const root = mkdtempSync(join(tmpdir(), 'svc-retention-'));
  tt.teardown(() => rmSync(root, { recursive: true, force: true, maxRetries: 5 }));
  return { bus, records, clock, now, root, storedAt };
}

/**
 * Starts a supervisor (of `node`, default node-0) that sees `fleet` as the fleet's live nodes, and waits
 * until it has recorded run `id` ended.
 */
async function endedBy(
  tt: Test,
  opts: Omit<Parameters<typeof superviseLocally>[0], 'logger' | 'roster'> & { readonly fleet: string[] },
  id: string,
): Promise<SandboxRunRecord | undefined> {
  const supervisor = superviseLocally({ ...opts, logger, roster: () => Promise.resolve(opts.fleet) });
  tt.teardown(() => supervisor.stop());
  return until(
    () => Promise.resolve(opts.records.get(id)),
    (r) => r?.status === 'failed',
    { timeoutMs: 10_000, everyMs: 10 },
  );
}

t.test(
  'a live run whose node left the fleet a month ago ends as lost, then ages out like any end',
  async (tt) => {
    const { bus, records, clock, now, root, storedAt } = await othersRuns(tt, [['sb-lost', 'node-9']], 31);
    const ended = await endedBy(tt, { bus, records, root, now, fleet: ['node-0'] }, 'sb-lost');
    tt.match(
      ended,
      {
        status: 'failed',
        error: 'its node node-9 was lost: gone from the fleet, it has not stored the run for 30 days',
        updated_at: iso(storedAt + 30 * DAY),
      },
      'recorded failed, saying its node was lost, as of 30 days after its node last stored it',
    );
    const failedEvent = (subjects: string[]): boolean =>
      subjects.some((s) => s.endsWith('sandbox_run_failed'));
    tt.ok(
      failedEvent(await until(() => subjectsIn(bus, Streams.Events), failedEvent)),
      'its end is published as any failed run’s',
    );
    // The wake follows the record and its event.
    tt.ok(
      (
        await until(
          () => subjectsIn(bus, Streams.Inbox),
          (subjects) => subjects.includes(Subjects.agentInbox('bob')),
        )
      ).includes(Subjects.agentInbox('bob')),
      'its seat is woken with the outcome',
    );
    // The end is stored again once its event and wake are done (owed cleared): only then is it settled.
    await until(
      () => Promise.resolve(records.get('sb-lost')),
      (r) => r?.owed === null,
      { timeoutMs: 10_000, everyMs: 10 },
    );
    clock.ms = storedAt + 61 * DAY;
    await records.prune();
    tt.equal(records.get('sb-lost'), undefined, '30 days after that end the run is dropped');
    tt.same(await inStream(bus), [], 'and its records leave the stream: its node no longer holds the trim');
  },
);

t.test('a live run whose node is in the fleet is not taken as lost, however old its record', async (tt) => {
  const runs: [string, string][] = [
    ['sb-kept', 'node-8'],
    ['sb-lost', 'node-9'],
  ];
  const { bus, records, now, root } = await othersRuns(tt, runs, 31);
  // The runs are looked at in the order stored: once the second has ended, the first was decided.
  await endedBy(tt, { bus, records, root, now, fleet: ['node-8'] }, 'sb-lost');
  tt.equal(records.get('sb-kept')?.status, 'running', 'the run of node-8, still in the fleet, runs on');
});

t.test('while the fleet is unknown no run is taken as lost', async (tt) => {
  const { records, clock } = await othersRuns(tt, [['sb-old', 'node-9']], 31);
  const ended: string[] = [];
  const end = (lost: LostRun): Promise<void> => Promise.resolve(void ended.push(lost.run.sandbox_id));
  await endLostRuns(records, 'node-0', clock.ms, undefined, end);
  await endLostRuns(records, 'node-0', clock.ms, () => Promise.resolve(null), end);
  tt.same(ended, [], 'no roster, or one not read yet: nothing ends');
  await endLostRuns(records, 'node-0', clock.ms, () => Promise.resolve([]), end);
  tt.same(ended, ['sb-old'], 'the same run ends once the fleet is known without its node');
});

t.test('a node back after its run ended as lost stops what is left of the run', async (tt) => {
  const bus = await openBus(tt);
  const root = mkdtempSync(join(tmpdir(), 'svc-retention-'));
  tt.teardown(() => rmSync(root, { recursive: true, force: true, maxRetries: 5 }));
  const argv = ['sleep', String(15_000 + Math.floor(Math.random() * 3_000))];
  tt.teardown(() => killGroupsOf(argv));
  const before = await openSandboxRecords({ bus, node: 'node-0', logger });
  const away = superviseLocally({ bus, records: before, root, logger });
  await away.launch(launchOf('sb-back', argv.join(' ')));
  await until(
    () => Promise.resolve(pidsRunning(argv)),
    (pids) => pids.length === 1,
    { everyMs: 25 },
  );
  // node-0 goes away; its run goes on on its machine.
  await away.stop();
  await before.stop();

  const clock = { ms: 0 };
  const now = (): Date => new Date(clock.ms);
  const peer = await openSandboxRecords({ bus, node: 'node-1', logger, now });
  tt.teardown(() => peer.stop());
  clock.ms = (peer.storedAt('sb-back') ?? 0) + 31 * DAY;
  const peerRoot = join(root, 'node-1');
  await endedBy(
    tt,
    { bus, records: peer, root: peerRoot, node: 'node-1', now, fleet: ['node-1'] },
    'sb-back',
  );
  tt.equal(pidsRunning(argv).length, 1, 'another node ends the run on the records only');

  const back = await openSandboxRecords({ bus, node: 'node-0', logger });
  tt.teardown(() => back.stop());
  const supervisor = superviseLocally({ bus, records: back, root, logger });
  tt.teardown(() => supervisor.stop());
  await until(
    () => Promise.resolve(pidsRunning(argv)),
    (pids) => pids.length === 0,
    { timeoutMs: 10_000, everyMs: 25 },
  );
  tt.pass('node-0, back, stopped the run its records say is over');
  tt.equal(back.get('sb-back')?.status, 'failed', 'and the run stays ended');
});
