/**
 * A detached coding run outlives its node: on real `svc serve` children over one store, a seat's turn
 * launches a run (`run_sandbox`), the node is killed (-9) while the turn waits on it, and the restarted
 * node shows the same run in `/sandbox-runs` and the snapshot, resumes the turn's wait on the same run
 * (no second launch), and records its end — `done`, a `phase: sandbox` row in the seat's `llm_history`.
 * With `sandbox.isolation: bubblewrap` the node's runs get their own namespaces and never see its files.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { mentionWake, queueWake } from '../harness/wake.js';
import { ensureCatalogue, openMemoryBus } from '../../bus/index.js';
import { startLlmServer } from '../fixtures/llm/llm-server.js';
import { sandboxTurnScript } from '../fixtures/llm/sandbox-turn.js';
import { fakeAgentCommand } from '../actors/sandbox/harness.js';
import { bootNode, storeDir, type BootedNode, type StoreDir } from '../harness/serve-store.js';
import { until } from '../harness/until.js';
import { localProviders } from '../fixtures/llm/providers.js';

const script = sandboxTurnScript('Add the endpoint', 'The coding run finished.');

interface Run {
  sandbox_id: string;
  status: string;
  agent_handle: string;
  started_at: string;
}

async function wake(store: StoreDir): Promise<void> {
  const bus = await openMemoryBus({ storeDir: store.storeDir });
  await ensureCatalogue(bus);
  await queueWake(bus, 'bob', mentionWake('Please add the endpoint'));
  await bus.close();
}

/** Asks `path` until `test` holds for its JSON (each answer is a fresh read), for at most 60 s. */
const poll = <T>(node: BootedNode, path: string, test: (body: T) => boolean): Promise<T> =>
  until(async () => (await (await node.call('GET', path)).json()) as T, test, {
    timeoutMs: 60_000,
    everyMs: 50,
  });

/** Puts the company whose seat Bob has a sandbox running `agent` with `env`; the answer's status. */
async function putBob(
  node: BootedNode,
  llmBaseUrl: string,
  env: Record<string, string>,
  agent: string,
): Promise<number> {
  const company = {
    name: 'Acme',
    timezone: 'UTC',
    providers: localProviders(llmBaseUrl),
    roles: [{ name: 'Bob', sandbox: { env, default_coding_agent: agent } }],
  };
  const put = await node.call('PUT', '/config', {
    body: JSON.stringify(company),
    headers: { 'content-type': 'application/json', 'x-summary': 'sandbox test' },
  });
  return put.status;
}

t.test(
  'kill -9 while a turn waits on its coding run: the restarted node shows the same run and sees it end',
  async (t: Test) => {
    const store = storeDir(t);
    const llm = await startLlmServer({ wire: 'openai', script });
    t.teardown(() => llm.close());
    await wake(store);
    const control = (id: string) => join(store.storeDir, 'sandboxes', id, 'control');
    let launched: string | null = null;
    // Whatever happens, the held agent is let go (it runs detached, outside the node).
    t.teardown(() => {
      if (launched && existsSync(control(launched))) writeFileSync(join(control(launched), 'release'), '');
    });

    const first = await bootNode(t, store, '');
    t.equal(await putBob(first, llm.baseUrl, { FAKE_HOLD: '1' }, fakeAgentCommand), 201);
    const before = await poll<{ runs: Run[] }>(first, '/sandbox-runs', (b) =>
      b.runs.some((r) => r.status === 'running'),
    );
    const run = before.runs[0]!;
    launched = run.sandbox_id;
    t.equal(run.agent_handle, 'bob');
    const snapshot = (await (await first.call('GET', '/stream/snapshot')).json()) as { sandboxes: Run[] };
    t.match(
      snapshot.sandboxes,
      [{ sandbox_id: run.sandbox_id, status: 'running' }],
      'the snapshot shows the live run',
    );
    first.run.kill('SIGKILL');
    await first.run.exited;

    const second = await bootNode(t, store, '');
    const after = (await (await second.call('GET', '/sandbox-runs')).json()) as { runs: Run[] };
    t.same(after.runs, before.runs, 'the restarted node shows the same run state');
    const again = (await (await second.call('GET', '/stream/snapshot')).json()) as { sandboxes: Run[] };
    t.match(again.sandboxes, [{ sandbox_id: run.sandbox_id, status: 'running' }]);

    // The resumed turn waits on the same run (its retried call finds it); then the agent may finish.
    await second.run.waitForLog((l) => l.msg === 'turn resumed');
    await second.run.waitForLog((l) => l.msg === 'sandbox run awaited' && l['sandbox_id'] === run.sandbox_id);
    writeFileSync(join(control(run.sandbox_id), 'release'), '');
    const done = await poll<{ runs: Run[] }>(second, '/sandbox-runs', (b) => b.runs[0]?.status === 'done');
    t.equal(done.runs.length, 1, 'no second run was launched');
    t.equal(done.runs[0]!.sandbox_id, run.sandbox_id);
    await second.run.waitForLog((l) => l.msg === 'turn completed');
    const agent = await poll<{ llm_history?: Array<{ phase: string; launch_id?: string }> }>(
      second,
      '/agents/bob',
      (b) => (b.llm_history ?? []).some((r) => r.phase === 'sandbox'),
    );
    t.match(
      agent.llm_history!.find((r) => r.phase === 'sandbox'),
      { phase: 'sandbox', launch_id: run.sandbox_id, failed: false },
      'the run is a phase: sandbox row of the seat',
    );
    t.equal(llm.requests.length, 4, 'the model was asked once per step: the turn resumed, not restarted');
    t.equal(await second.stop(), 0);
  },
);

t.test(
  'a node told to isolate runs its seats’ coding runs in bubblewrap: a pid namespace, the node’s files out of sight',
  async (t: Test) => {
    const store = storeDir(t);
    const llm = await startLlmServer({ wire: 'openai', script });
    t.teardown(() => llm.close());
    await wake(store);
    const node = await bootNode(t, store, 'sandbox: {isolation: bubblewrap, network: none}');
    // A coding agent in plain shell (the view holds /usr): it reports what it can see, then ends done.
    const agent = [
      'if test -e "$NODE_CONFIG"; then seen=visible; else seen=hidden; fi',
      'printf \'{"status":"done","summary":"pid=%s config=%s"}\' "$$" "$seen" > "$SVC_SANDBOX_CONTROL/result.json.tmp"',
      'mv "$SVC_SANDBOX_CONTROL/result.json.tmp" "$SVC_SANDBOX_CONTROL/result.json"',
    ].join('; ');
    t.equal(await putBob(node, llm.baseUrl, { NODE_CONFIG: store.configFile }, agent), 201);
    const bob = await poll<{ llm_history?: Array<{ phase: string; response?: string }> }>(
      node,
      '/agents/bob',
      (b) => (b.llm_history ?? []).some((r) => r.phase === 'sandbox'),
    );
    const row = bob.llm_history!.find((r) => r.phase === 'sandbox')!;
    t.match(
      row.response,
      /^pid=\d config=hidden$/,
      'a small pid of its own namespace; the bootstrap file unseen',
    );
    t.ok(existsSync(store.configFile), 'while it is there for the node');
    t.equal(await node.stop(), 0);
  },
);
