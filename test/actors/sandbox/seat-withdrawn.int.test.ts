/**
 * A coding run acts for its seat only while the company document gives that seat a sandbox. Once an applied
 * document removes the seat (or takes its `sandbox` away), the tool bridge refuses the run's token at once
 * (401 `invalid_token`, as for an ended run), and the node that watches the run cancels it when its apply
 * is announced, as an operator cancel would: the process tree stopped, the run recorded `cancelled` by the
 * revision.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { pino } from 'pino';
import t, { type Test } from 'tap';
import { Subjects } from '../../../bus/index.js';
import type { RevisionApplied } from '../../../schema/index.js';
import { startSandboxes } from '../../../scripts/sandbox-wiring.js';
import { groupAlive } from '../../harness/proc.js';
import { until } from '../../harness/until.js';
import { company } from '../seat/harness.js';
import { launchBobHolding, startSandboxCompany, type SandboxHarness } from './harness.js';

/** Calls the `files_echo` seat tool through the run's bridge; the HTTP status and JSON answer. */
async function echoThrough(mcpUrl: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(mcpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'files_echo', arguments: { text: 'hi' } },
    }),
  });
  return { status: res.status, body: await res.json() };
}

/** What the node's config applier announces once it applied `revision` here. */
async function announceApplied(h: SandboxHarness, node: string, revision: string): Promise<void> {
  const applied: RevisionApplied = {
    node,
    revision_id: revision,
    epoch: 2,
    status: 'applied',
    applied_subsystems: ['org', 'tool_servers'],
    at: new Date().toISOString(),
  };
  await h.bus.publish(Subjects.configRevisionApplied, new TextEncoder().encode(JSON.stringify(applied)));
}

/** The harness company as applied next: `change` edits Bob's unit roles. */
function withBob(h: SandboxHarness, change: (roles: Array<Record<string, unknown>>) => void): unknown {
  const doc = company(h.llm.baseUrl) as unknown as {
    units: Array<{ roles: Array<Record<string, unknown>> }>;
  };
  change(doc.units[0]!.roles);
  return doc;
}

async function runWithBridge(t: Test, id: string, trace: string) {
  const h = await startSandboxCompany(t, { script: [], env: { FAKE_HOLD: '1' } });
  const run = await launchBobHolding(h, id, trace);
  const environ = readFileSync(`/proc/${run.pid!}/environ`, 'utf8').split('\0');
  const mcpUrl = environ.find((e) => e.startsWith('SVC_MCP_URL='))!.slice('SVC_MCP_URL='.length);
  t.match(await echoThrough(mcpUrl), { status: 200, body: { result: { isError: false } } }, 'served first');
  return { h, run, mcpUrl };
}

const cases = [
  {
    what: 'a document that removes the seat',
    change: (roles: Array<Record<string, unknown>>) =>
      roles.splice(
        roles.findIndex((r) => r['name'] === 'Bob'),
        1,
      ),
  },
  {
    what: 'a document that takes the seat’s sandbox away',
    // The harness company's Bob has no `sandbox`: applying it as it is takes the sandbox away.
    change: () => undefined,
  },
];

for (const { what, change } of cases) {
  t.test(`${what}: the bridge refuses the run, and its node cancels it by the revision`, async (t) => {
    const { h, run, mcpUrl } = await runWithBridge(t, 'sb-withdrawn', 'c');
    await h.apply(withBob(h, change));

    // Applied, not yet announced: the seat acts no more through its run.
    const refused = await echoThrough(mcpUrl);
    t.equal(refused.status, 401, 'the bridge refuses the token');
    t.match(refused.body, { error: 'invalid_token' });
    t.equal(h.sandboxes.records.get('sb-withdrawn')?.status, 'running', 'the run is not ended yet');

    // Another node's apply is not this node's: its runs are judged by what it applied itself.
    await announceApplied(h, 'node-9', randomUUID());
    const revision = randomUUID();
    await announceApplied(h, 'node-0', revision);
    const ended = await h.waitRun((r) => r.sandbox_id === 'sb-withdrawn' && r.status === 'cancelled', 10_000);
    t.match(ended.error, new RegExp(`^cancelled by revision ${revision}: it gives seat bob no sandbox`));
    await until(
      () => Promise.resolve(groupAlive(run.pid!)),
      (alive) => !alive,
      { timeoutMs: 10_000, everyMs: 25 },
    );
    t.pass('its process tree is gone');
    t.match(await echoThrough(mcpUrl), { status: 401 }, 'and stays refused');
  });
}

t.test('a document that keeps the seat’s sandbox leaves its run alone', async (t) => {
  const { h, mcpUrl } = await runWithBridge(t, 'sb-kept', 'e');
  const sandbox = h.tools.sandbox.settingsFor('bob')!;
  await h.apply(
    withBob(h, (roles) => {
      const bob = roles.find((r) => r['name'] === 'Bob')!;
      bob['goal'] = 'Write better code';
      bob['sandbox'] = { env: sandbox.settings.env, default_coding_agent: sandbox.coding_agent };
    }),
  );
  const kept = randomUUID();
  await announceApplied(h, 'node-0', kept);
  t.match(await echoThrough(mcpUrl), { status: 200, body: { result: { isError: false } } }, 'still served');
  // Announcements are taken in order: had the first ended the run, the cancel would name it.
  await h.apply(withBob(h, () => undefined));
  const removed = randomUUID();
  await announceApplied(h, 'node-0', removed);
  const ended = await h.waitRun((r) => r.sandbox_id === 'sb-kept' && r.status === 'cancelled', 10_000);
  t.match(ended.error, `cancelled by revision ${removed}:`, 'ended by the revision that took the sandbox');
});

t.test('a node that starts after applying such a document ends the run by that revision', async (t) => {
  const { h, run } = await runWithBridge(t, 'sb-boot', 'f');
  // The node stops (the agent runs on, detached); meanwhile it applies a document without Bob.
  await h.sandboxes.stop();
  await h.apply(
    withBob(h, (roles) =>
      roles.splice(
        roles.findIndex((r) => r['name'] === 'Bob'),
        1,
      ),
    ),
  );
  const revision = randomUUID();
  await announceApplied(h, 'node-0', revision);
  t.equal(h.sandboxes.records.get('sb-boot')?.status, 'running', 'nobody ended it while the node was away');

  const again = await startSandboxes({
    bus: h.bus,
    nodeId: 'node-0',
    storeDir: h.root,
    runsSeats: true,
    tools: h.tools,
    logger: pino({ level: 'silent' }),
    reconcile: () => undefined,
    env: {},
    pollMs: 50,
  });
  t.teardown(() => again.stop());
  const ended = await until(
    () => Promise.resolve(again.records.get('sb-boot')),
    (r) => r?.status === 'cancelled',
    { timeoutMs: 10_000, everyMs: 25 },
  );
  t.match(ended?.error, `cancelled by revision ${revision}: it gives seat bob no sandbox`);
  await until(
    () => Promise.resolve(groupAlive(run.pid!)),
    (alive) => !alive,
    { timeoutMs: 10_000, everyMs: 25 },
  );
  t.pass('its process tree is gone');
});
