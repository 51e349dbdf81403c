/**
 * How long run records are kept (ops/sandboxes.md "The run record"): an ended run 30 days after its end,
 * then it is gone from every node's memory and from the stream; a live run is never dropped, however long
 * it sits still, since its supervisor stores it again daily. Time is the records' and supervisor's clock.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import t, { type Test } from 'tap';
import { openSandboxRecords } from '../../../actors/index.js';
import { ensureCatalogue, openMemoryBus, Streams, type Bus } from '../../../bus/index.js';
import type { SandboxRunRecord } from '../../../schema/index.js';
import { pidsRunning } from '../../harness/proc.js';
import { until } from '../../harness/until.js';
import { superviseLocally } from './local-supervisor.js';

const logger = pino({ level: 'silent' });
const DAY = 24 * 3_600_000;
const T0 = Date.parse('2026-06-01T00:00:00.000Z');
const iso = (ms: number): string => new Date(ms).toISOString();

const runOf = (id: string, status: SandboxRunRecord['status'], at: number): SandboxRunRecord => ({
  turn_id: 'turn-1',
  role: 'Bob',
  agent_handle: 'bob',
  agent_id: 'agent-bob',
  coding_agent: 'fake',
  sandbox_id: id,
  task: 'work',
  status,
  started_at: iso(at),
  question: null,
  audience: null,
  work_item: null,
  owner: 'bob',
  paused_at: null,
  // Another node's: nothing here watches them.
  node: 'node-9',
  trace_id: 'a'.repeat(32),
  span_id: 'b'.repeat(16),
  token_sha256: id.padEnd(64, '0').replace(/[^0-9a-f]/g, '0'),
  workdir: '/nowhere',
  pid: null,
  answer: null,
  telemetry: { traces: 0, metrics: 0, logs: 0, spans: 0 },
  updated_at: iso(at),
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
  tt.teardown(() => pidsRunning(argv).forEach((pid) => process.kill(pid, 'SIGKILL')));
  await supervisor.launch({
    sandbox_id: 'sb-still',
    seat: 'bob',
    role: 'Bob',
    agent_id: 'bob',
    turn_id: 'turn-1',
    trace_id: 'f'.repeat(32),
    task: 'hold',
    work_item: null,
    coding_agent: 'fake',
    settings: { setup: [], env: {}, command: argv.join(' ') },
  });
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
