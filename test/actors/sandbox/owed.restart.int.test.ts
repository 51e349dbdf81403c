/**
 * A move's event and wake outlive a crash (ops/sandboxes.md "The run record"): a node killed after storing
 * a run's move but before publishing its `sandbox_run_*` event and waking the seat finds that owed on the
 * record when it starts again, publishes the event and wakes the seat then — once: the record is stored
 * again without what it owed, so a later restart, even past the inbox's and the events' duplicate windows,
 * sends neither again.
 *
 * The crash cannot be timed between two bus writes from outside: the run record is stored as the cut node
 * left it (the move with what it owed, nothing published), on a store the run's own node then starts on.
 * The run itself is real: a coding agent on the local backend, asking its question and waiting.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import t, { type Test } from 'tap';
import { randomUUID } from 'node:crypto';
import { openSandboxRecords, type SandboxRecords, type SandboxSupervisor } from '../../../actors/index.js';
import { ensureCatalogue, openMemoryBus, Streams, Subjects, type Bus } from '../../../bus/index.js';
import type { SandboxRunRecord } from '../../../schema/index.js';
import { until } from '../../harness/until.js';
import { killRun } from '../../scripts/fixtures/sandbox-procs.js';
import { aRun } from './runs.fixture.js';
import { launchOf, superviseLocally } from './local-supervisor.js';

const logger = pino({ level: 'silent' });
const HOUR = 3_600_000;
const fakeAgent = join(dirname(fileURLToPath(import.meta.url)), '../../fixtures/sandbox/fake-agent.mjs');
const decoder = new TextDecoder();

/** What a stream holds on `subject`, parsed. */
async function stored(bus: Bus, stream: string, subject: string): Promise<Array<Record<string, unknown>>> {
  const out: Array<Record<string, unknown>> = [];
  for await (const msg of bus.replay(stream, { subject }))
    out.push(JSON.parse(decoder.decode(msg.data)) as Record<string, unknown>);
  return out;
}

const eventsOf = (bus: Bus, type: string) => stored(bus, Streams.Events, Subjects.event(type));
const wakesOf = (bus: Bus, seat: string) => stored(bus, Streams.Inbox, Subjects.agentInbox(seat));

/** A node's sandbox side on `bus`: its records and supervisor, stopped at teardown unless stopped before. */
async function boot(
  t: Test,
  bus: Bus,
  root: string,
  now: () => Date,
): Promise<{ records: SandboxRecords; supervisor: SandboxSupervisor; stop: () => Promise<void> }> {
  const records = await openSandboxRecords({ bus, node: 'node-0', logger, now });
  const supervisor = superviseLocally({ bus, records, root, logger, now });
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    await supervisor.stop();
    await records.stop();
  };
  t.teardown(stop);
  return { records, supervisor, stop };
}

/** Stores `run` on the run's subject, as the cut node's `put` did. */
const storeAsCut = (bus: Bus, run: Record<string, unknown>) =>
  bus.publish(
    Subjects.sandboxRun(run['sandbox_id'] as string),
    new TextEncoder().encode(JSON.stringify(run)),
  );

const delivered = (records: SandboxRecords, id: string) =>
  until(
    () => Promise.resolve(records.get(id)),
    (run) => run !== undefined && (run as { owed?: unknown }).owed === null,
    { timeoutMs: 10_000, everyMs: 10 },
  );

t.test(
  'a question stored before a crash cut its event and wake: the restarted node publishes the event and wakes the seat once, and a later restart sends neither again',
  async (t) => {
    const root = mkdtempSync(join(tmpdir(), 'svc-owed-'));
    t.teardown(() => rmSync(root, { recursive: true, force: true, maxRetries: 5 }));

    // A real run that asks and waits, launched on a store of its own (the run as it stood at the crash).
    const first = await openMemoryBus();
    await ensureCatalogue(first);
    t.teardown(() => first.close());
    const before = await boot(t, first, root, () => new Date());
    const id = `sb-ask-${randomUUID().slice(0, 8)}`;
    // Nothing of the run outlives the test, whatever happened: its agent runs detached from the node.
    t.teardown(() => killRun(id));
    const launch = launchOf(id, `${process.execPath} ${fakeAgent}`);
    await before.supervisor.launch({
      ...launch,
      settings: { ...launch.settings, env: { FAKE_QUESTION: 'Which branch?' } },
    });
    const asked = await until(
      () => Promise.resolve(before.records.get(id)),
      (run) => run?.status === 'awaiting_clarification',
      { timeoutMs: 15_000, everyMs: 10 },
    );
    await before.stop();

    // The node's own store holds the move, with what it owed, and nothing else of it: no event, no wake.
    const clock = { ms: Date.now() };
    const now = (): Date => new Date(clock.ms);
    const bus = await openMemoryBus({ clock: () => clock.ms });
    await ensureCatalogue(bus);
    t.teardown(() => bus.close());
    await storeAsCut(bus, {
      ...asked,
      owed: { by: 'node-0', event: 'sandbox_run_paused', wake: 'asked' },
    });

    const restarted = await boot(t, bus, root, now);
    const settled = await delivered(restarted.records, id);
    t.equal(settled?.status, 'awaiting_clarification', 'the run still waits on its question');
    const paused = await eventsOf(bus, 'sandbox_run_paused');
    t.equal(paused.length, 1, 'the owed sandbox_run_paused is published');
    t.match(paused[0], { payload: { sandbox_id: id, question: 'Which branch?' } });
    const wakes = await wakesOf(bus, 'bob');
    t.equal(wakes.length, 1, 'the seat is woken');
    t.match(wakes[0], { kind: 'sandbox', payload: { sandbox_id: id, status: 'awaiting_clarification' } });
    await restarted.stop();

    // Restarted again past every duplicate window: what was done is not owed any more.
    clock.ms += 4 * HOUR;
    const again = await boot(t, bus, root, now);
    t.equal((again.records.get(id) as { owed?: unknown } | undefined)?.owed, null, 'nothing is owed');
    // The run goes on to its end on this node (its ticks have run by then).
    t.match(await again.supervisor.answer(id, 'bob', 'main'), { ok: true });
    await until(
      () => Promise.resolve(again.records.get(id)),
      (run) => run?.status === 'done' && (run as { owed?: unknown }).owed === null,
      { timeoutMs: 15_000, everyMs: 10 },
    );
    t.equal((await eventsOf(bus, 'sandbox_run_paused')).length, 1, 'the question was published once');
    t.equal((await eventsOf(bus, 'sandbox_run_completed')).length, 1, 'its end once');
    const all = await wakesOf(bus, 'bob');
    t.same(
      all.map((w) => (w['payload'] as { status: string }).status),
      ['awaiting_clarification', 'done'],
      'the seat was woken once for the question, once for the end',
    );
  },
);

t.test('an end stored before a crash cut its event and wake: the restarted node does both', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'svc-owed-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true, maxRetries: 5 }));
  const bus = await openMemoryBus();
  await ensureCatalogue(bus);
  t.teardown(() => bus.close());
  const at = new Date().toISOString();
  const ended: SandboxRunRecord = aRun({
    sandbox_id: 'sb-ended',
    status: 'done',
    summary: 'fixed it',
    total_tokens: 42,
    ended_at: at,
    duration_ms: 1_000,
    updated_at: at,
  });
  await storeAsCut(bus, { ...ended, owed: { by: 'node-0', event: 'sandbox_run_completed', wake: 'ended' } });

  const node = await boot(t, bus, root, () => new Date());
  await delivered(node.records, 'sb-ended');
  const completed = await eventsOf(bus, 'sandbox_run_completed');
  t.equal(completed.length, 1, 'the owed sandbox_run_completed is published');
  t.match(completed[0], { payload: { sandbox_id: 'sb-ended', status: 'done', summary: 'fixed it' } });
  const wakes = await wakesOf(bus, 'bob');
  t.equal(wakes.length, 1, 'the seat is woken for the end');
  t.match(wakes[0], { payload: { sandbox_id: 'sb-ended', status: 'done' } });
});

t.test('what another node owes is left to that node', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'svc-owed-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true, maxRetries: 5 }));
  const bus = await openMemoryBus();
  await ensureCatalogue(bus);
  t.teardown(() => bus.close());
  const at = new Date().toISOString();
  // node-1 recorded node-0's run lost and was cut before its event: node-0, back, leaves that to node-1.
  const lost = aRun({ sandbox_id: 'sb-lost', status: 'failed', error: 'lost', ended_at: at, updated_at: at });
  await storeAsCut(bus, { ...lost, owed: { by: 'node-1', event: 'sandbox_run_failed', wake: 'ended' } });
  const mine = aRun({ sandbox_id: 'sb-mine', status: 'failed', error: 'gone', ended_at: at, updated_at: at });
  await storeAsCut(bus, { ...mine, owed: { by: 'node-0', event: 'sandbox_run_failed', wake: 'ended' } });

  const node = await boot(t, bus, root, () => new Date());
  // Owed steps are done in one pass of a tick: once node-0's own are done, it has passed over node-1's.
  await delivered(node.records, 'sb-mine');
  const failed = await eventsOf(bus, 'sandbox_run_failed');
  t.same(
    failed.map((e) => (e['payload'] as { sandbox_id: string }).sandbox_id),
    ['sb-mine'],
    'only its own owed event is published',
  );
  t.match(
    (node.records.get('sb-lost') as { owed?: unknown }).owed,
    { by: 'node-1' },
    'node-1 still owes its own',
  );
});
