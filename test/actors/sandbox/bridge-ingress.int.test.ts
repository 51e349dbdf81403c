/**
 * The tool bridge on a node that did not launch the run judges it by the run's own record, not only by the
 * document that node holds: an ingress node whose apply of a revision failed (it still gives the seat a
 * sandbox) refuses the run's token, and cuts a call of it under way, once the launching node has ended
 * the run by that revision.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import t from 'tap';
import { Subjects } from '../../../bus/index.js';
import type { RevisionApplied } from '../../../schema/index.js';
import { startSandboxes } from '../../../scripts/sandbox-wiring.js';
import { startToolServers } from '../../../scripts/toolservers-wiring.js';
import { freePort } from '../../harness/child.js';
import { until } from '../../harness/until.js';
import { company } from '../seat/harness.js';
import { captureLogs } from '../toolservers/harness.js';
import { launchBobHolding, sandboxCompany, startSandboxCompany, startSandboxGateway } from './harness.js';

const env = { FAKE_HOLD: '1' };
const toolEnv = { ECHO_HANG_TOOLS: 'stall' };

/** Calls a seat tool through the bridge at `url`; the HTTP status and JSON answer. */
async function callThrough(url: string, name: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name, arguments: { text: 'hi' } },
    }),
  });
  return { status: res.status, body: await res.json() };
}

t.test(
  'an ingress node whose apply failed refuses a run its launching node ended by the revision, and cuts its call under way',
  async (t) => {
    const h = await startSandboxCompany(t, { script: [], env, toolEnv });
    const run = await launchBobHolding(h, 'sb-ingress', 'a');
    const token = readFileSync(`/proc/${run.pid!}/environ`, 'utf8')
      .split('\0')
      .find((e) => e.startsWith('SVC_MCP_URL='))!
      .split('/mcp/')[1]!;

    // node-1: an ingress node on the same bus, with the document before the revision (its apply failed).
    const logs = captureLogs();
    const logger = logs.logger;
    const tools = startToolServers({ bus: h.bus, nodeId: 'node-1', logger, memory: h.memory });
    const before = company(h.llm.baseUrl, sandboxCompany(env, [], toolEnv)(h.llm.baseUrl));
    await tools.subsystem.apply(before, null);
    const port = await freePort();
    const ingress = await startSandboxes({
      bus: h.bus,
      nodeId: 'node-1',
      storeDir: null,
      runsSeats: false,
      tools,
      logger,
      reconcile: () => undefined,
      env: { SVC_SANDBOX_OTEL_RECEIVER_URL: `http://127.0.0.1:${port}` },
    });
    const gateway = await startSandboxGateway(port, ingress.routes('test'));
    t.teardown(async () => {
      await gateway.close();
      await ingress.stop();
      await tools.stop();
    });
    const url = `http://127.0.0.1:${port}/mcp/${token}`;
    t.match(await callThrough(url, 'files_echo'), { status: 200, body: { result: { isError: false } } });

    // A call under way through node-1 when the revision lands.
    const stalled = callThrough(url, 'files_stall');
    await logs.waitFor(
      (l) => l.msg === 'tool server stderr' && /^call \d+ waits$/m.test(String(l['stderr'])),
    );

    // node-0 applies a document without Bob's sandbox and announces it; node-1 never applied it.
    const doc = company(h.llm.baseUrl) as unknown as {
      units: Array<{ roles: Array<Record<string, unknown>> }>;
    };
    await h.apply(doc);
    const revision = randomUUID();
    const applied: RevisionApplied = {
      node: 'node-0',
      revision_id: revision,
      epoch: 2,
      status: 'applied',
      applied_subsystems: ['org', 'tool_servers'],
      at: new Date().toISOString(),
    };
    await h.bus.publish(Subjects.configRevisionApplied, new TextEncoder().encode(JSON.stringify(applied)));
    await h.waitRun((r) => r.sandbox_id === 'sb-ingress' && r.status === 'cancelled', 10_000);
    await until(
      () => Promise.resolve(ingress.records.get('sb-ingress')?.status),
      (s) => s === 'cancelled',
      { timeoutMs: 10_000, everyMs: 25 },
    );
    t.ok(tools.sandbox.settingsFor('bob'), 'node-1 still gives Bob a sandbox');

    t.match(await callThrough(url, 'files_echo'), { status: 401, body: { error: 'invalid_token' } });
    t.match(
      await stalled,
      { status: 200, body: { result: { isError: true } } },
      'the call under way ends with the run',
    );
  },
);
