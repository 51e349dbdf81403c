/**
 * The control directory is the run's: under bubblewrap it is bound writable into the sandbox, while the node
 * and the exit-code wrapper read and write it from outside. So what the run leaves there is never followed
 * out of it: a symbolic link in place of a control file is not read (its target could be any file the node
 * can read, shown back as the run's summary) nor written through (the wrapper would truncate a file of the
 * node's), and a FIFO is not waited on (an open of one blocks until a writer comes).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { localBackend, processIsolation } from '../../../actors/index.js';
import type { Launched, Observation, SandboxBackend } from '../../../actors/sandbox/backend.js';
import { until } from '../../harness/until.js';

/** Observes until the run ends; fails (never hangs) when an observation does not answer in 10 s. */
async function ended(backend: SandboxBackend, run: Launched): Promise<Observation> {
  const observe = (): Promise<Observation> =>
    Promise.race([
      backend.observe(run),
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error('an observation did not answer in 10 s')), 10_000).unref(),
      ),
    ]);
  return until(observe, (seen) => seen.result !== null || seen.gone !== null, {
    timeoutMs: 20_000,
    everyMs: 25,
  });
}

function setUp(t: Test) {
  const root = mkdtempSync(join(tmpdir(), 'svc-control-files-'));
  const outside = mkdtempSync(join(tmpdir(), 'svc-node-files-'));
  t.teardown(() => {
    rmSync(root, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });
  const backend = localBackend({ root, isolation: processIsolation });
  const launch = (id: string, command: string) =>
    backend.launch({
      sandbox_id: id,
      task: 'leave something in control',
      settings: { setup: [], env: {}, command },
      env: {},
    });
  return { backend, outside, launch };
}

t.test('a link in place of agent.log is not read: the summary is not the file it points at', async (t) => {
  const { backend, outside, launch } = setUp(t);
  const secret = join(outside, 'node-secret.txt');
  writeFileSync(secret, 'NODE-SIDE-SECRET-LINE\n');
  const run = await launch(
    'sb-log-link',
    `rm -f "$SVC_SANDBOX_CONTROL/agent.log"; ln -s ${secret} "$SVC_SANDBOX_CONTROL/agent.log"; exit 0`,
  );
  const end = await ended(backend, run);
  t.equal(end.result?.status, 'done');
  t.notMatch(end.result?.summary ?? '', /NODE-SIDE-SECRET/, 'the target is never shown');
});

t.test('a link in place of result.json is not read: the run ends by its exit', async (t) => {
  const { backend, outside, launch } = setUp(t);
  const planted = join(outside, 'result.json');
  writeFileSync(planted, JSON.stringify({ status: 'done', summary: 'from outside', total_tokens: 0 }));
  const run = await launch('sb-result-link', `ln -s ${planted} "$SVC_SANDBOX_CONTROL/result.json"; exit 3`);
  const end = await ended(backend, run);
  t.equal(end.result, null, 'not ended by the linked file');
  t.equal(end.gone, 'the coding agent exited with code 3');
});

t.test('a FIFO in place of result.json is not waited on', async (t) => {
  const { backend, launch } = setUp(t);
  const run = await launch(
    'sb-result-fifo',
    `mkfifo "$SVC_SANDBOX_CONTROL/result.json" "$SVC_SANDBOX_CONTROL/question.json"; exit 3`,
  );
  const end = await ended(backend, run);
  t.equal(end.result, null);
  t.equal(end.gone, 'the coding agent exited with code 3', 'ended by its exit code');
});

t.test('a link planted where the wrapper writes the exit code is not written through', async (t) => {
  const { backend, outside, launch } = setUp(t);
  const victim = join(outside, 'node-file.txt');
  writeFileSync(victim, 'the node keeps this\n');
  const run = await launch('sb-exit-link', `ln -s ${victim} "$SVC_SANDBOX_CONTROL/exit_code.tmp"; exit 3`);
  const end = await ended(backend, run);
  t.equal(readFileSync(victim, 'utf8'), 'the node keeps this\n', 'the target is untouched');
  t.equal(end.gone, 'the coding agent exited with code 3', 'and the exit code is still recorded');
});
