/**
 * A run's stored pid after a restart (ops/sandboxes.md "Restarts"): pids are reused, so a process that
 * took the pid since is not the run. The node neither signals it nor takes the run for running: the run
 * is recorded gone and the stranger goes on.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import t, { type Test } from 'tap';
import { localBackend, openSandboxRecords } from '../../../actors/index.js';
import { ensureCatalogue, openMemoryBus } from '../../../bus/index.js';
import { killGroupsOf, pidsRunning } from '../../harness/proc.js';
import { until } from '../../harness/until.js';
import { superviseLocally } from './local-supervisor.js';
import { aRun } from './runs.fixture.js';

const logger = pino({ level: 'silent' });

function tempRoot(tt: Test): string {
  const root = mkdtempSync(join(tmpdir(), 'svc-stale-pid-'));
  tt.teardown(() => rmSync(root, { recursive: true, force: true, maxRetries: 5 }));
  return root;
}

/** An unrelated `sleep` leading its own process group, as a detached run's wrapper would. */
function stranger(tt: Test): ChildProcess & { pid: number } {
  const child = spawn('sleep', ['600'], { detached: true, stdio: 'ignore' });
  tt.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  if (child.pid === undefined) throw new Error('sleep did not start');
  return child as ChildProcess & { pid: number };
}

/** Read from /proc, not from the child's exit event (which may not have been handled yet): not ended, not a zombie. */
function stillRunning(child: ChildProcess & { pid: number }): boolean {
  try {
    const stat = readFileSync(`/proc/${child.pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** A run directory as `launch` leaves it, with no exit code yet: the run looks as if still running. */
function runDir(root: string, id: string): string {
  const workdir = join(root, id, 'work');
  mkdirSync(workdir, { recursive: true });
  mkdirSync(join(root, id, 'control'), { recursive: true });
  return workdir;
}

t.test('the backend neither stops nor counts as running a stranger that holds a run’s pid', async (tt) => {
  const root = tempRoot(tt);
  const backend = localBackend({ root });
  const other = stranger(tt);
  const stale = { workdir: runDir(root, 'sb-stale'), pid: other.pid };
  const seen = await backend.observe(stale);
  tt.equal(seen.gone, 'the coding agent process is gone', 'the run is gone');
  // A run of its own stopped after it: once that one has ended, a signal sent first has landed too.
  const argv = ['sleep', String(12_000 + Math.floor(Math.random() * 3_000))];
  tt.teardown(() => killGroupsOf(argv));
  const own = await backend.launch({
    sandbox_id: 'sb-own',
    task: 'hold',
    settings: { setup: [], env: {}, command: `exec ${argv.join(' ')}` },
    env: {},
  });
  await until(
    () => Promise.resolve(pidsRunning(argv)),
    (pids) => pids.length === 1,
    { everyMs: 25 },
  );
  tt.equal((await backend.observe(own)).gone, null, 'the run’s own process is still recognised');
  await backend.stop(stale);
  await backend.stop(own);
  await until(
    () => Promise.resolve(pidsRunning(argv)),
    (pids) => pids.length === 0,
    { everyMs: 25 },
  );
  tt.ok(stillRunning(other), 'the stranger was not signalled');
});

t.test('a restarted node records a run whose pid a stranger took as gone, and leaves it be', async (tt) => {
  const root = tempRoot(tt);
  const bus = await openMemoryBus();
  await ensureCatalogue(bus);
  tt.teardown(() => bus.close());
  const other = stranger(tt);
  const at = new Date().toISOString();
  const run = aRun({
    sandbox_id: 'sb-stale',
    started_at: at,
    updated_at: at,
    workdir: runDir(root, 'sb-stale'),
    pid: other.pid,
  });
  // What the node wrote before its restart.
  const before = await openSandboxRecords({ bus, node: 'node-0', logger });
  await before.put(run);
  await before.stop();
  const records = await openSandboxRecords({ bus, node: 'node-0', logger });
  tt.teardown(() => records.stop());
  const supervisor = superviseLocally({ bus, records, root, logger });
  tt.teardown(() => supervisor.stop());
  const ended = await until(
    () => Promise.resolve(records.get('sb-stale')),
    (r) => r?.status === 'failed',
    { timeoutMs: 15_000, everyMs: 25 },
  );
  tt.match(ended, { status: 'failed' }, 'the run is recorded ended');
  const cancel = await supervisor.cancel('sb-stale', 'alice', 'stop it');
  tt.match(cancel, { ok: false, error: 'ended' }, 'a cancel finds it ended and signals nothing');
  tt.ok(stillRunning(other), 'the stranger still runs');
});
