/**
 * Arrivals and provisioning passes are records on the bus: a real `svc serve` killed with SIGKILL and
 * started again on the same store reads the same `/integrations` counts and the same runs, and a pass
 * the kill cut in the middle is recorded as failed by the restarted node (its actor rebuilt from them).
 */
import { createHmac } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { bootNode, storeDir, type BootedNode } from '../harness/serve-store.js';

const SECRET = 'codehost-a-restart-secret-0123';
const env = { TRACKER_A_TOKEN: 'tracker-a-token-0123' };

const arrivalsOf = async (node: BootedNode, surface: string): Promise<Record<string, unknown>> => {
  const answer = (await (await node.call('GET', '/integrations')).json()) as {
    surfaces: Array<{ surface: string; arrivals: Record<string, unknown> }>;
  };
  return answer.surfaces.find((s) => s.surface === surface)!.arrivals;
};
const runsOf = async (node: BootedNode, kind: string): Promise<Array<Record<string, unknown>>> =>
  (
    (await (await node.call('GET', `/setup/integrations/${kind}/runs`)).json()) as {
      runs: Array<Record<string, unknown>>;
    }
  ).runs;

t.test(
  'arrival counts and passes survive a SIGKILL; a pass the kill cut is recorded as failed',
  async (t) => {
    // A tracker-a that never answers: its pass is in flight when the node is killed.
    const asked: IncomingMessage[] = [];
    let arrived: () => void = () => undefined;
    const hanging = new Promise<void>((resolve) => (arrived = resolve));
    const vendor = createServer((req) => {
      asked.push(req);
      arrived();
    });
    vendor.listen(0, '127.0.0.1');
    await once(vendor, 'listening');
    t.teardown(() => {
      vendor.closeAllConnections();
      vendor.close();
    });
    const vendorUrl = `http://127.0.0.1:${(vendor.address() as AddressInfo).port}`;

    const store = storeDir(t);
    const first = await bootNode(t, store, '', env);
    const company = {
      name: 'Acme',
      integrations: {
        codehost_a: { webhook_secret: SECRET },
        tracker_a: { url: vendorUrl, token: '${TRACKER_A_TOKEN}' },
      },
      roles: [{ name: 'Ada' }, { name: 'Cy' }],
    };
    const put = await first.call('PUT', '/config', {
      body: JSON.stringify(company),
      headers: { 'content-type': 'application/json', 'x-summary': 'integrations' },
    });
    t.equal(put.status, 201, await put.text());
    await first.run.waitForLog((l) => l.msg === 'config applied');

    const body = JSON.stringify({ action: 'assigned', issue: { number: 7, assignees: [{ login: 'cy' }] } });
    const signed = (id: string, signature = createHmac('sha256', SECRET).update(body).digest('hex')) => ({
      'content-type': 'application/json',
      'x-codehost-a-event': 'issues',
      'x-codehost-a-delivery': id,
      'x-codehost-a-signature-256': `sha256=${signature}`,
    });
    const deliver = (headers: Record<string, string>) =>
      fetch(`${first.url}/webhooks/codehost-a`, { method: 'POST', headers, body });
    t.equal((await deliver(signed('d-1'))).status, 200);
    t.equal((await deliver(signed('d-1'))).status, 200, 'the same delivery again: a duplicate');
    t.equal((await deliver(signed('d-2'))).status, 200);
    t.equal((await deliver(signed('d-3', '0'.repeat(64)))).status, 401);

    const check = await first.call('POST', '/setup/integrations/monitor/check');
    t.equal(check.status, 200);
    const checked = (await check.json()) as { id: string };

    const before = await arrivalsOf(first, 'codehost-a');
    t.match(before, { accepted: 2, duplicates: 1, refused: 1, not_configured: 0 });
    const runsBefore = await runsOf(first, 'monitor');
    t.same(
      runsBefore.map((r) => r['id']),
      [checked.id],
    );

    // A check of tracker-a waits on the vendor; the node dies while it does.
    const cut = first.call('POST', '/setup/integrations/tracker-a/check').catch(() => null);
    await hanging;
    first.run.kill('SIGKILL');
    await first.run.exited;
    t.equal(await cut, null, 'the caller of the cut pass got no answer');
    t.equal(asked.length, 1);

    const second = await bootNode(t, store, '', env);
    t.same(await arrivalsOf(second, 'codehost-a'), before, 'the same counts after the restart');
    t.same(await runsOf(second, 'monitor'), runsBefore, 'the same runs after the restart');
    const cutRuns = await runsOf(second, 'tracker-a');
    t.equal(cutRuns.length, 1, 'the cut pass is remembered');
    t.match(cutRuns[0], {
      kind: 'tracker-a',
      mode: 'check',
      status: 'failed',
      reason: 'the node running this pass stopped before it finished',
    });
    t.ok(
      second.run.lines.some((l) => l['event'] === 'setup_pass_abandoned'),
      'the restarted node abandoned it',
    );

    // The rebuilt actor serves commands again: a new check runs (the vendor still hangs, so it fails by timeout
    // only after 10 s; a check of the monitor is enough to prove the command path).
    const again = await second.call('POST', '/setup/integrations/monitor/check');
    t.equal(again.status, 200);
    t.equal((await runsOf(second, 'monitor')).length, 2);
    const counted = await arrivalsOf(second, 'codehost-a');
    const listed = await runsOf(second, 'tracker-a');
    t.equal(await second.stop(), 0);

    // A stop saves the read model's checkpoint: the next boot resumes from it, with the same answers.
    const third = await bootNode(t, store, '', env);
    t.match(
      third.run.lines.find((l) => l.msg === 'projection ready' && l['projection'] === 'integrations'),
      { from: 'checkpoint' },
    );
    t.same(await arrivalsOf(third, 'codehost-a'), counted);
    t.same(await runsOf(third, 'tracker-a'), listed);
    t.equal((await runsOf(third, 'monitor')).length, 2);
    await third.stop();
  },
);
