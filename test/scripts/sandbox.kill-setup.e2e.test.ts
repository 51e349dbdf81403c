/**
 * A coding run whose node dies (kill -9) between its launch and the record that it started is never left
 * running unaccounted: on real `svc serve` children over one store, a seat's turn launches a run whose setup
 * step holds, the node is killed while the run is recorded `launching` (the step running on, outside the
 * dead node), and the restarted node records the launch cut and stops the step it left. A run cancelled
 * just before its node dies, whose agent ignores the SIGTERM, is stopped by the restarted node.
 */
import t, { type Test } from 'tap';
import { bootNode } from '../harness/serve-store.js';
import { killGroupsOf, pidsRunning } from '../harness/proc.js';
import { until } from '../harness/until.js';
import { putBob, runsUntil, storeWithWake } from './fixtures/sandbox-node.js';

const SUMMARY = 'sandbox kill test';

/** A `sleep` no other process runs with the same arguments, killed at teardown whatever happened. */
function marker(t: Test): string[] {
  const argv = ['sleep', String(6_000 + Math.floor(Math.random() * 3_000))];
  t.teardown(() => killGroupsOf(argv));
  return argv;
}

t.test(
  'kill -9 in a coding run’s setup: the restarted node records the launch cut and stops the step it left running',
  async (t: Test) => {
    const { store, llmBaseUrl } = await storeWithWake(t);
    // The setup step: a shell waiting on the marker.
    const step = marker(t);
    const first = await bootNode(t, store, '');
    t.equal(await putBob(first, llmBaseUrl, { setup: [`${step.join(' ')} & wait`] }, SUMMARY), 201);
    await until(
      () => Promise.resolve(pidsRunning(step)),
      (pids) => pids.length === 1,
      { timeoutMs: 30_000, everyMs: 25 },
    );
    const [launching] = await runsUntil(first, (runs) => runs.length === 1);
    t.equal(launching!.status, 'launching', 'the run is recorded launching, not started');

    first.run.kill('SIGKILL');
    await first.run.exited;
    t.equal(pidsRunning(step).length, 1, 'the setup step outlives its node');

    const second = await bootNode(t, store, '');
    const [cut] = await runsUntil(second, (runs) => runs[0]?.status === 'failed');
    t.match(cut, { sandbox_id: launching!.sandbox_id, error: 'the launch was cut by a restart' });
    await until(
      () => Promise.resolve(pidsRunning(step)),
      (pids) => pids.length === 0,
      { timeoutMs: 15_000, everyMs: 25 },
    );
    t.pass('the step the cut launch left is stopped');
    t.equal(await second.stop(), 0);
  },
);

t.test(
  'kill -9 as the coding agent starts: after the restart the agent is either watched as running or recorded cut and stopped',
  async (t: Test) => {
    const { store, llmBaseUrl } = await storeWithWake(t);
    const agent = marker(t);
    const first = await bootNode(t, store, '');
    // The agent kills its node as it starts: the record that it started may or may not have landed.
    const command = `kill -9 ${first.run.child.pid}; exec ${agent.join(' ')}`;
    t.equal(await putBob(first, llmBaseUrl, { default_coding_agent: command }, SUMMARY), 201);
    await first.run.exited;
    await until(
      () => Promise.resolve(pidsRunning(agent)),
      (pids) => pids.length === 1,
      { timeoutMs: 10_000, everyMs: 25 },
    );

    const second = await bootNode(t, store, '');
    const [run] = await runsUntil(
      second,
      (runs) => runs[0]?.status === 'running' || runs[0]?.status === 'failed',
    );
    if (run!.status === 'failed') {
      t.comment('the started record had not landed');
      t.equal(run!.error, 'the launch was cut by a restart');
    } else {
      t.comment('the started record had landed');
      const cancel = await second.call('POST', `/sandbox-runs/${run!.sandbox_id}/cancel`, {
        body: '{}',
        headers: { 'content-type': 'application/json' },
      });
      t.equal(cancel.status, 200, 'the watched run is stopped on request');
    }
    await until(
      () => Promise.resolve(pidsRunning(agent)),
      (pids) => pids.length === 0,
      { timeoutMs: 15_000, everyMs: 25 },
    );
    t.pass('nothing of the run is left running unaccounted');
    t.equal(await second.stop(), 0);
  },
);

t.test(
  'kill -9 in a cancel’s grace: the restarted node stops what of the cancelled run ignored its SIGTERM',
  async (t: Test) => {
    const { store, llmBaseUrl } = await storeWithWake(t);
    const agent = marker(t);
    const first = await bootNode(t, store, '');
    const command = `trap '' TERM; ${agent.join(' ')} & wait`;
    t.equal(await putBob(first, llmBaseUrl, { default_coding_agent: command }, SUMMARY), 201);
    const [run] = await runsUntil(first, (runs) => runs[0]?.status === 'running');
    // `running` is recorded once the shell starts; the agent it backgrounds may start later on a loaded machine.
    await until(
      () => Promise.resolve(pidsRunning(agent)),
      (pids) => pids.length === 1,
      { timeoutMs: 10_000, everyMs: 25 },
    );
    const cancel = await first.call('POST', `/sandbox-runs/${run!.sandbox_id}/cancel`, {
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    t.equal(cancel.status, 200);
    // The node dies before the grace ends: the SIGKILL it owed the run's group is never sent.
    first.run.kill('SIGKILL');
    await first.run.exited;
    t.equal(pidsRunning(agent).length, 1, 'the agent ignored the SIGTERM and outlived its node');

    const second = await bootNode(t, store, '');
    const [ended] = await runsUntil(second, (runs) => runs.length === 1);
    t.equal(ended!.status, 'cancelled', 'the run stays cancelled');
    await until(
      () => Promise.resolve(pidsRunning(agent)),
      (pids) => pids.length === 0,
      { timeoutMs: 15_000, everyMs: 25 },
    );
    t.pass('the cancelled run leaves nothing running');
    t.equal(await second.stop(), 0);
  },
);
