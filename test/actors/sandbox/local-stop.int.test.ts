/**
 * Stopping a run on the local backend (ops/sandboxes.md "Cancelling a run"): SIGTERM to its process group,
 * then SIGKILL to what is left after the grace. An agent that ignores SIGTERM is killed all the same —
 * when the caller awaits the stop, when it moves on, and when the node exits before the grace is over —
 * and the grace's timer does not hold a node that has nothing else to do. Each SIGKILL checks again that
 * the group is still the run's (it carries the run's `SVC_SANDBOX_ID`), as the SIGTERM did.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import { localBackend } from '../../../actors/index.js';
import { killGroupsOf, pidsRunning } from '../../harness/proc.js';
import { until } from '../../harness/until.js';

const fixture = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'stop-and-leave.ts');

/** A `sleep` nobody else runs: its pids are the run's agent. */
function marker(tt: Test): string[] {
  const argv = ['sleep', String(9_000 + Math.floor(Math.random() * 3_000))];
  tt.teardown(() => killGroupsOf(argv));
  return argv;
}

function tempRoot(tt: Test): string {
  const root = mkdtempSync(join(tmpdir(), 'svc-local-stop-'));
  // A killed run's processes may still be ending as the directory goes.
  tt.teardown(() => rmSync(root, { recursive: true, force: true, maxRetries: 5 }));
  return root;
}

const running = (argv: readonly string[], n: number) =>
  until(
    () => Promise.resolve(pidsRunning(argv)),
    (pids) => pids.length === n,
    { timeoutMs: 15_000, everyMs: 25 },
  );

t.test('an agent that ignores SIGTERM is killed after the grace, the caller having gone on', async (tt) => {
  const backend = localBackend({ root: tempRoot(tt) });
  const argv = marker(tt);
  const run = await backend.launch({
    sandbox_id: 'sb-trap',
    task: 'ignore TERM',
    settings: { setup: [], env: {}, command: `trap '' TERM; exec ${argv.join(' ')}` },
    env: {},
  });
  await running(argv, 1);
  await backend.stop(run);
  tt.equal(pidsRunning(argv).length, 1, 'the stop answers at once: the agent still runs, in its grace');
  await running(argv, 0);
  tt.pass('killed once the grace was over');
});

/**
 * A run whose group no longer carries its `SVC_SANDBOX_ID` when the grace is over: its agent ignores SIGTERM
 * and sheds the variable as it starts, so once the SIGTERM has ended the wrapper (the group's leader) the
 * group is no longer recognisably the run's — as a group id taken by a stranger during the grace would not be.
 */
const shedding = (argv: readonly string[]): string =>
  `trap '' TERM; exec env -u SVC_SANDBOX_ID ${argv.join(' ')}`;

t.test(
  'the grace’s SIGKILL re-checks the group is the run’s: one that no longer is, is left alone',
  async (tt) => {
    const backend = localBackend({ root: tempRoot(tt) });
    const shed = marker(tt);
    const own = marker(tt);
    const launch = (id: string, command: string) =>
      backend.launch({
        sandbox_id: id,
        task: 'ignore TERM',
        settings: { setup: [], env: {}, command },
        env: {},
      });
    const stranger = await launch('sb-shed', shedding(shed));
    const run = await launch('sb-own', `trap '' TERM; exec ${own.join(' ')}`);
    await running(shed, 1);
    await running(own, 1);
    // Stopped first: its deadline passes no later than the own run's, in the same check or an earlier one.
    await backend.stop(stranger);
    await backend.stop(run);
    await running(own, 0);
    tt.pass('the run still its own was killed once the grace was over');
    tt.equal(pidsRunning(shed).length, 1, 'the group that no longer carries its run’s id was not SIGKILLed');
  },
);

/** Runs the fixture (stop-and-leave.ts) to its exit: the lines it printed, and its stderr's tail. */
async function leave(tt: Test, how: 'exit' | 'idle' | 'shed', argv: readonly string[]) {
  const root = tempRoot(tt);
  const child = spawn(process.execPath, ['--import=tsx', fixture, root, how, ...argv], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  tt.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const lines: string[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => lines.push(line));
  await once(child, 'exit');
  return { lines, stderr: stderr.slice(-500) };
}

for (const how of ['exit', 'idle'] as const) {
  t.test(
    how === 'exit'
      ? 'a node that exits during a stop’s grace kills the agent that ignores SIGTERM as it goes'
      : 'a stop’s grace does not keep an otherwise idle node running, and the agent still ends',
    async (tt) => {
      const argv = marker(tt);
      const { lines, stderr } = await leave(tt, how, argv);
      tt.ok(lines.includes('stopping'), `the stop was asked (stderr: ${stderr})`);
      const after = Number(lines.find((l) => l.startsWith('exit after '))?.slice('exit after '.length));
      // The grace is 5 s: a node held by its timer could not exit before it was over.
      tt.ok(after < 4_000, `the node exited ${after} ms after asking the stop, not after the grace`);
      await running(argv, 0);
      tt.pass('the agent did not outlive the node');
    },
  );
}

t.test(
  'the SIGKILL at exit re-checks the group is the run’s: one that no longer is, is left alone',
  async (tt) => {
    const argv = marker(tt);
    const { lines, stderr } = await leave(tt, 'shed', argv);
    tt.ok(lines.includes('stopping'), `the stop was asked (stderr: ${stderr})`);
    tt.ok(
      lines.some((l) => l.startsWith('exit after ')),
      'the node exited within the grace',
    );
    tt.equal(pidsRunning(argv).length, 1, 'the group that no longer carries its run’s id was not SIGKILLed');
  },
);
