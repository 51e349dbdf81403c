/**
 * The supervisor over the real local backend: however a run ends — the agent's own result while it keeps
 * running, or its wrapper killed under it — the run is recorded ended and nothing of it is left running.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import t, { type Test } from 'tap';
import { openSandboxRecords, type SandboxSupervisor } from '../../../actors/index.js';
import { ensureCatalogue, openMemoryBus } from '../../../bus/index.js';
import type { SandboxRunRecord } from '../../../schema/index.js';
import { until } from '../../harness/until.js';
import { killGroupsOf, pidsRunning } from '../../harness/proc.js';
import { launchOf, superviseLocally } from './local-supervisor.js';
import { aRun } from './runs.fixture.js';

/** A `sleep` nobody else runs: its pids are the run's leftovers. */
const marker = (): string[] => ['sleep', String(6_000 + Math.floor(Math.random() * 3_000))];

async function startSupervisor(
  tt: Test,
): Promise<{ supervisor: SandboxSupervisor; get: (id: string) => SandboxRunRecord | undefined }> {
  const root = mkdtempSync(join(tmpdir(), 'svc-supervisor-'));
  const bus = await openMemoryBus();
  await ensureCatalogue(bus);
  const logger = pino({ level: 'silent' });
  const records = await openSandboxRecords({ bus, node: 'node-0', logger });
  const supervisor = superviseLocally({ bus, records, root, logger });
  tt.teardown(async () => {
    await supervisor.stop();
    await records.stop();
    await bus.close();
    // A killed run's processes may still be ending as the directory goes.
    rmSync(root, { recursive: true, force: true, maxRetries: 5 });
  });
  return { supervisor, get: (id) => records.get(id) };
}

const launch = (supervisor: SandboxSupervisor, id: string, command: string) =>
  supervisor.launch(launchOf(id, command));

const leftoverGone = (argv: readonly string[]) =>
  until(
    () => Promise.resolve(pidsRunning(argv)),
    (pids) => pids.length === 0,
    { timeoutMs: 10_000, everyMs: 25 },
  );

t.test('a run that reports its result but keeps running is recorded done and stopped', async (tt) => {
  const { supervisor, get } = await startSupervisor(tt);
  const argv = marker();
  tt.teardown(() => killGroupsOf(argv));
  const result = '{"status":"done","summary":"reported","total_tokens":0,"error":null}';
  await launch(
    supervisor,
    'sb-result',
    `echo '${result}' > "$SVC_SANDBOX_CONTROL/r.tmp"; mv "$SVC_SANDBOX_CONTROL/r.tmp" "$SVC_SANDBOX_CONTROL/result.json"; exec ${argv.join(' ')}`,
  );
  const done = await supervisor.settle('sb-result');
  tt.equal(done?.status, 'done');
  tt.equal(get('sb-result')?.summary, 'reported');
  await leftoverGone(argv);
  tt.pass('the agent that went on after its result was stopped');
});

t.test('a run whose wrapper is killed under it fails as gone and its agent is stopped', async (tt) => {
  const { supervisor } = await startSupervisor(tt);
  const argv = marker();
  tt.teardown(() => killGroupsOf(argv));
  const run = await launch(supervisor, 'sb-gone', argv.join(' '));
  await until(
    () => Promise.resolve(pidsRunning(argv)),
    (pids) => pids.length === 1,
    { timeoutMs: 10_000, everyMs: 25 },
  );
  tt.ok(run.pid, 'the run has its wrapper’s pid');
  process.kill(run.pid!, 'SIGKILL');
  const failed = await supervisor.settle('sb-gone');
  tt.equal(failed?.status, 'failed');
  tt.match(failed?.error, /gone/);
  await leftoverGone(argv);
  tt.pass('the agent left without its wrapper was stopped');
});

t.test('a run cancelled while its setup runs ends cancelled at once, its setup stopped', async (tt) => {
  const argv = marker();
  const { supervisor, get } = await startSupervisor(tt);
  // `; true`: the step's shell forks the sleep rather than becoming it, so the step is a tree.
  // Before the supervisor's teardown, which waits for the launch (and so for the step) to end.
  tt.teardown(() => killGroupsOf(argv));
  const launched = supervisor.launch({
    ...launchOf('sb-setup', 'true'),
    settings: { setup: [`${argv.join(' ')}; true`], env: {}, command: 'true' },
  });
  await until(
    () => Promise.resolve(pidsRunning(argv)),
    (pids) => pids.length === 1,
    { timeoutMs: 10_000, everyMs: 25 },
  );
  tt.equal(get('sb-setup')?.status, 'launching');
  const answer = await Promise.race([
    supervisor.cancel('sb-setup', 'ops', 'wrong repository'),
    new Promise<'no answer'>((resolve) => setTimeout(() => resolve('no answer'), 5_000).unref()),
  ]);
  tt.match(answer, {
    ok: true,
    changed: true,
    run: { status: 'cancelled', error: 'cancelled by ops: wrong repository' },
  });
  tt.match(await launched, { status: 'cancelled' }, 'the launch ends with the run cancelled');
  await leftoverGone(argv);
  tt.pass('the setup step and what it started were stopped');
  tt.match(await supervisor.cancel('sb-setup', 'ops', ''), { ok: true, changed: false });
});

t.test('what a setup step leaves running in the background ends with the step', async (tt) => {
  const { supervisor } = await startSupervisor(tt);
  const argv = marker();
  tt.teardown(() => killGroupsOf(argv));
  const run = await supervisor.launch({
    ...launchOf('sb-background', 'true'),
    settings: { setup: [`${argv.join(' ')} > /dev/null 2>&1 &`], env: {}, command: 'true' },
  });
  tt.equal(run.status, 'running', 'the setup step succeeded');
  await leftoverGone(argv);
  tt.pass('its background process did not outlive it');
  // The wrapper is still writing the exit code into the control directory the teardown removes.
  tt.equal((await supervisor.settle('sb-background'))?.status, 'done');
});

t.test('a node stopping while a run’s setup runs stops the step and records the launch cut', async (tt) => {
  const argv = marker();
  const { supervisor, get } = await startSupervisor(tt);
  // Before the supervisor's teardown, which waits for the launch (and so for the step) to end.
  tt.teardown(() => killGroupsOf(argv));
  const launched = supervisor.launch({
    ...launchOf('sb-stop', 'true'),
    settings: { setup: [`${argv.join(' ')}; true`], env: {}, command: 'true' },
  });
  await until(
    () => Promise.resolve(pidsRunning(argv)),
    (pids) => pids.length === 1,
    { timeoutMs: 10_000, everyMs: 25 },
  );
  const stopped = await Promise.race([
    supervisor.stop().then(() => 'stopped' as const),
    new Promise<'still waiting'>((resolve) => setTimeout(() => resolve('still waiting'), 5_000).unref()),
  ]);
  tt.equal(stopped, 'stopped', 'the stop does not wait for the setup step');
  tt.match(await launched, { status: 'failed', error: /stop/ });
  tt.equal(get('sb-stop')?.status, 'failed');
  await leftoverGone(argv);
  tt.pass('the setup step was stopped');
});

/** A process group of `sh` and its background `argv`, started with run `id`'s variable as a setup step is. */
function stepOf(tt: Test, id: string, argv: readonly string[]): void {
  const step = spawn('sh', ['-c', `${argv.join(' ')} & wait`], {
    detached: true,
    stdio: 'ignore',
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', SVC_SANDBOX_ID: id },
  });
  step.unref();
  tt.teardown(() => killGroupsOf(argv));
}

t.test(
  'a node restarted after dying in a run’s setup records the launch cut and stops the step it left',
  async (tt) => {
    const root = mkdtempSync(join(tmpdir(), 'svc-supervisor-'));
    tt.teardown(() => rmSync(root, { recursive: true, force: true, maxRetries: 5 }));
    const bus = await openMemoryBus();
    await ensureCatalogue(bus);
    tt.teardown(() => bus.close());
    const logger = pino({ level: 'silent' });
    // What a node killed (-9) in a setup step leaves: the run recorded launching, the step running on.
    const before = await openSandboxRecords({ bus, node: 'node-0', logger });
    await before.put(aRun({ sandbox_id: 'sb-cut', status: 'launching', workdir: null }));
    await before.stop();
    const left = marker();
    stepOf(tt, 'sb-cut', left);
    const other = marker();
    stepOf(tt, 'sb-other', other);
    await until(
      () => Promise.resolve([...pidsRunning(left), ...pidsRunning(other)]),
      (pids) => pids.length === 2,
      { timeoutMs: 10_000, everyMs: 25 },
    );
    const records = await openSandboxRecords({ bus, node: 'node-0', logger });
    tt.teardown(() => records.stop());
    const supervisor = superviseLocally({ bus, records, root, logger });
    tt.teardown(() => supervisor.stop());
    const ended = await until(
      () => Promise.resolve(records.get('sb-cut')),
      (r) => r?.status === 'failed',
      { timeoutMs: 15_000, everyMs: 25 },
    );
    tt.equal(ended?.error, 'the launch was cut by a restart');
    await leftoverGone(left);
    tt.pass('the cut launch’s setup step was stopped');
    tt.equal(pidsRunning(other).length, 1, 'a process of no such run is left alone');
  },
);

t.test('runs that ended leave nothing queued for them on the node that ran them', async (tt) => {
  const { supervisor } = await startSupervisor(tt);
  const ids = Array.from({ length: 12 }, (_, i) => `sb-many-${i}`);
  for (const id of ids) await launch(supervisor, id, 'true');
  for (const id of ids) tt.equal((await supervisor.settle(id))?.status, 'done', `${id} ended`);
  // The watch loop queues moves only for live runs: once every run has ended, no chain is left.
  await until(
    () => Promise.resolve(supervisor.queued()),
    (n) => n === 0,
    { timeoutMs: 5_000, everyMs: 25 },
  );
  tt.pass('no per-run chain outlives its run');
  // A later move of an ended run still gets its answer, on a fresh chain that goes in turn.
  tt.match(await supervisor.cancel(ids[0]!, 'ops', ''), { ok: false, error: 'ended' });
  await until(
    () => Promise.resolve(supervisor.queued()),
    (n) => n === 0,
    { timeoutMs: 5_000, everyMs: 25 },
  );
});
