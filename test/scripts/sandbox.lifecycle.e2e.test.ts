/**
 * A coding run's life on a real `svc serve` child with `SVC_SANDBOX_OTEL_RECEIVER_URL` set, seen only from
 * outside: a seat's turn launches it, it exports telemetry on its own `/otlp/{token}` and calls the seat's
 * tools on its own `/mcp/{token}`, it ends, and the end shows in `/sandbox-runs`, `/events`, the socket's
 * `sandboxes` pushes and the seat's `llm_history`, its token refused from then on. Faults: the run's agent
 * killed under it; the node killed (-9) mid-run and restarted, the run's token still its own there; the
 * same under bubblewrap, the restarted node cancelling the run and leaving nothing of it running.
 */
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { bootNode, type BootedNode, type StoreDir } from '../harness/serve-store.js';
import { freePort } from '../harness/child.js';
import { until } from '../harness/until.js';
import { killRun, pidsWith } from './fixtures/sandbox-procs.js';
import {
  agentOf,
  eventsUntil,
  putBob,
  runsUntil,
  storeWithWake,
  type SandboxRun,
} from './fixtures/sandbox-node.js';
import { rawWebSocket } from '../harness/ws-raw.js';
import { TOKEN } from '../harness/serve-store.js';

interface Run extends SandboxRun {
  telemetry: { traces: number; metrics: number; logs: number; spans: number } | null;
}

const mcpHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const rpc = (id: number, method: string, params: unknown) =>
  JSON.stringify({ jsonrpc: '2.0', id, method, params });
const init = rpc(1, 'initialize', {
  protocolVersion: '2025-03-26',
  capabilities: {},
  clientInfo: { name: 't', version: '1' },
});
const spans = (n: number) =>
  JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: Array.from({ length: n }, () => ({})) }] }] });

/** Bob's sandbox whose fake agent holds until released. */
const held = { env: { FAKE_HOLD: '1' } };

async function boot(t: Test, store: StoreDir, port: number): Promise<BootedNode> {
  return bootNode(t, store, '', { SVC_SANDBOX_OTEL_RECEIVER_URL: `http://127.0.0.1:${port}` }, port);
}

t.test(
  'a run exports telemetry and calls its seat’s tools on its own token routes, ends, and is recorded; its token dies with it',
  async (t: Test) => {
    const { store, llmBaseUrl } = await storeWithWake(t);
    const port = await freePort();
    const node = await boot(t, store, port);
    // The live section as the socket pushes it: each `sandboxes` frame's run statuses.
    const socket = await rawWebSocket(port, '/ws/stream', [['Authorization', `Bearer ${TOKEN}`]]);
    t.teardown(() => socket.destroy());
    const pushes: string[][] = [];
    let ponged: () => void = () => undefined;
    void (async () => {
      for (;;) {
        const frame = JSON.parse(await socket.nextText()) as { kind: string; data: Run[] };
        if (frame.kind === 'sandboxes') pushes.push(frame.data.map((r) => r.status));
        if (frame.kind === 'pong') ponged();
      }
    })().catch(() => undefined);
    t.equal(await putBob(node, llmBaseUrl, held, 'sandbox lifecycle'), 201);
    const [run] = await runsUntil<Run>(node, (runs) => runs.some((r) => r.status === 'running'));
    const id = run!.sandbox_id;
    t.teardown(() => killRun(id));
    const agent = await agentOf(id);
    const otlp = agent.env.get('OTEL_EXPORTER_OTLP_ENDPOINT')!;
    const mcp = agent.env.get('SVC_MCP_URL')!;
    t.match(otlp, new RegExp(`^http://127\\.0\\.0\\.1:${port}/otlp/[A-Za-z0-9_-]{43}$`));
    t.equal(mcp, otlp.replace('/otlp/', '/mcp/'), 'one token for both routes');

    const exported = await fetch(`${otlp}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: spans(2),
    });
    t.equal(exported.status, 200, 'the run’s export is taken');
    const list = await fetch(mcp, { method: 'POST', headers: mcpHeaders, body: rpc(2, 'tools/list', {}) });
    t.equal(list.status, 200);
    const tools = ((await list.json()) as { result: { tools: Array<{ name: string }> } }).result.tools;
    t.same(
      tools.map((tool) => tool.name).filter((name) => name.endsWith('_sandbox')),
      [],
      'the seat’s tools but the sandbox ones',
    );
    const called = await fetch(mcp, {
      method: 'POST',
      headers: mcpHeaders,
      body: rpc(3, 'tools/call', { name: 'org_lookup', arguments: { query: 'bob' } }),
    });
    t.equal(called.status, 200);
    t.match(
      await called.json(),
      { id: 3, result: { content: [{ type: 'text', text: /bob/i }] } },
      'a seat tool called through the bridge answers as the seat',
    );

    writeFileSync(join(store.storeDir, 'sandboxes', id, 'control', 'release'), '');
    await runsUntil<Run>(node, (runs) => runs[0]?.status === 'done');
    const snapshot = (await (await node.call('GET', '/stream/snapshot')).json()) as { sandboxes: Run[] };
    t.same(snapshot.sandboxes, [], 'an ended run leaves the live section');
    const events = await eventsUntil(node, 'sandbox_run_completed');
    t.match(
      events.filter((r) => String(r['type']).startsWith('sandbox_run_')).map((r) => r['type']),
      ['sandbox_run_completed', 'sandbox_run_updated', 'sandbox_run_started'],
      'each move of the run is an event, newest first',
    );
    t.match(
      events.find((r) => r['type'] === 'sandbox_run_completed'),
      { failed: false, agent_id: String },
    );

    const refused = await fetch(`${otlp}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: spans(1),
    });
    t.equal(refused.status, 401, 'telemetry after the end is refused');
    t.match(await refused.json(), { code: 16, message: /^invalid_token/ });
    const late = await fetch(mcp, { method: 'POST', headers: mcpHeaders, body: init });
    t.equal(late.status, 401, 'a tool call after the end is refused');
    t.match(await late.json(), { error: 'invalid_token' });

    // The counts live in the record alone: the reconcile (at most 30 s on) brings them to the listing.
    const [counted] = await until(
      async () => ((await (await node.call('GET', '/sandbox-runs')).json()) as { runs: Run[] }).runs,
      (runs) => (runs[0]?.telemetry?.traces ?? 0) > 0,
      { timeoutMs: 40_000, everyMs: 500 },
    );
    t.same(
      counted!.telemetry,
      { traces: 1, metrics: 0, logs: 0, spans: 2 },
      'its telemetry counted on the run',
    );
    // Frames keep their order: a push of that reconcile would be in before this pong.
    const pong = new Promise<void>((resolve) => (ponged = resolve));
    socket.sendText(JSON.stringify({ kind: 'ping' }));
    await pong;
    t.ok(
      pushes.some((statuses) => statuses.includes('running')),
      'the socket was pushed the live run',
    );
    t.same(
      pushes.slice(pushes.findIndex((statuses) => statuses.length === 0)),
      [[]],
      'pushed once as it ended; the reconcile that brought the counts changed no live run and pushed nothing',
    );
    t.equal(await node.stop(), 0);
  },
);

/** A served node whose seat Bob's turn launched a run holding until released; the run's id and agent. */
async function heldRun(t: Test) {
  const { store, llmBaseUrl } = await storeWithWake(t);
  const port = await freePort();
  const node = await boot(t, store, port);
  t.equal(await putBob(node, llmBaseUrl, held, 'sandbox lifecycle'), 201);
  const [run] = await runsUntil<Run>(node, (runs) => runs.some((r) => r.status === 'running'));
  const id = run!.sandbox_id;
  t.teardown(() => killRun(id));
  return { store, port, node, id, agent: await agentOf(id) };
}

/** The seat's `phase: sandbox` row once its run ended. */
async function sandboxRow(node: BootedNode): Promise<Record<string, unknown>> {
  const bob = await until(
    async () =>
      (await (await node.call('GET', '/agents/bob')).json()) as {
        llm_history?: Array<Record<string, unknown>>;
      },
    (b) => (b.llm_history ?? []).some((r) => r['phase'] === 'sandbox'),
    { timeoutMs: 30_000, everyMs: 50 },
  );
  return bob.llm_history!.find((r) => r['phase'] === 'sandbox')!;
}

t.test(
  'a run whose agent is killed under it fails: recorded, published as sandbox_run_failed, its token dead',
  async (t: Test) => {
    const { node, id, agent } = await heldRun(t);
    const mcp = agent.env.get('SVC_MCP_URL')!;
    process.kill(agent.pid, 'SIGKILL');

    const [failed] = await runsUntil<Run>(node, (runs) => runs[0]?.status === 'failed');
    t.match(failed!.error, /exit|137|signal|gone/i, 'its error says how it ended');
    const events = await eventsUntil(node, 'sandbox_run_failed');
    t.match(
      events.find((r) => r['type'] === 'sandbox_run_failed'),
      { failed: true, agent_id: String },
      'sandbox_run_failed is a failure of the seat in the feed',
    );
    t.match(
      await sandboxRow(node),
      { launch_id: id, failed: true },
      'the seat’s history shows the failed run',
    );
    const late = await fetch(mcp, { method: 'POST', headers: mcpHeaders, body: init });
    t.equal(late.status, 401, 'its token is refused once it failed');
    await node.run.waitForLog((l) => l.msg === 'turn completed');
    t.equal(await node.stop(), 0);
  },
);

t.test(
  'a node killed (-9) mid-run and restarted serves the run’s token again; the run ends on it and the token dies',
  async (t: Test) => {
    const { store, port, node: first, id, agent } = await heldRun(t);
    const control = join(store.storeDir, 'sandboxes', id, 'control');
    const otlp = agent.env.get('OTEL_EXPORTER_OTLP_ENDPOINT')!;
    const mcp = agent.env.get('SVC_MCP_URL')!;
    const post = (body: string) =>
      fetch(`${otlp}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    t.equal((await post(spans(1))).status, 200, 'taken before the kill');
    first.run.kill('SIGKILL');
    await first.run.exited;

    const second = await boot(t, store, port);
    t.match(await runsUntil<Run>(second, (runs) => runs.length === 1), [
      { sandbox_id: id, status: 'running' },
    ]);
    t.equal((await post(spans(3))).status, 200, 'the restarted node takes the run’s telemetry');
    const list = await fetch(mcp, { method: 'POST', headers: mcpHeaders, body: rpc(2, 'tools/list', {}) });
    t.equal(list.status, 200, 'and answers its tool calls');
    t.match(await list.json(), { result: { tools: Array } });

    writeFileSync(join(control, 'release'), '');
    await runsUntil<Run>(second, (runs) => runs[0]?.status === 'done');
    t.equal((await post(spans(1))).status, 401, 'the token dies with the run');
    t.equal((await fetch(mcp, { method: 'POST', headers: mcpHeaders, body: init })).status, 401);
    await second.run.waitForLog((l) => l.msg === 'turn completed');
    t.equal(await second.stop(), 0);
  },
);

t.test(
  'under bubblewrap a run outlives its node’s kill -9; the restarted node cancels it and nothing of it is left',
  async (t: Test) => {
    const { store, llmBaseUrl } = await storeWithWake(t);
    const port = await freePort();
    const isolated = 'sandbox: {isolation: bubblewrap}';
    const env = { SVC_SANDBOX_OTEL_RECEIVER_URL: `http://127.0.0.1:${port}` };
    const first = await bootNode(t, store, isolated, env, port);
    // A shell agent (the isolated view holds /usr, not the test's files): it starts a child that leaves its
    // process group, then holds until told; its pid file says it is up.
    const agent = [
      'setsid sleep 600 &',
      'echo $$ > "$SVC_SANDBOX_CONTROL/up.tmp"; mv "$SVC_SANDBOX_CONTROL/up.tmp" "$SVC_SANDBOX_CONTROL/up"',
      'while ! test -e "$SVC_SANDBOX_CONTROL/release"; do sleep 0.05; done',
    ].join('\n');
    t.equal(await putBob(first, llmBaseUrl, { default_coding_agent: agent }, 'isolated run'), 201);
    const [run] = await runsUntil<Run>(first, (runs) => runs.some((r) => r.status === 'running'));
    const id = run!.sandbox_id;
    const control = join(store.storeDir, 'sandboxes', id, 'control');
    t.teardown(() => killRun(id));
    await until(
      () => Promise.resolve(readdirSync(control).includes('up')),
      (up) => up,
      { timeoutMs: 10_000, everyMs: 20 },
    );
    const ofRun = () => pidsWith(`SVC_SANDBOX_ID=${id}`);
    t.ok(ofRun().length >= 2, 'the run’s processes are up');
    first.run.kill('SIGKILL');
    await first.run.exited;

    const second = await bootNode(t, store, isolated, env, port);
    t.match(await runsUntil<Run>(second, (runs) => runs.length === 1), [
      { sandbox_id: id, status: 'running' },
    ]);
    const cancel = await second.call('POST', `/sandbox-runs/${id}/cancel`, {
      body: JSON.stringify({ reason: 'enough' }),
      headers: { 'content-type': 'application/json' },
    });
    t.equal(cancel.status, 200);
    t.match(await cancel.json(), { changed: true, run: { status: 'cancelled', error: /enough/ } });
    await until(
      () => Promise.resolve(ofRun()),
      (pids) => pids.length === 0,
      { timeoutMs: 15_000, everyMs: 100 },
    );
    t.pass('nothing of the run runs, the process that left its group included');
    t.equal(await second.stop(), 0);
  },
);
