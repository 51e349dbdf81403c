/**
 * A vendor's answer is read into memory only up to 1 MiB: a larger one (or one that never ends) fails the
 * pass's step with a reason in our words, the node stops reading it, and it goes on answering.
 */
import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import type { Test } from 'tap';
import t from 'tap';
import { fakeTrackerB, type Seen } from './fixtures/fake-vendors.js';
import { company, json, KEYRING, startSetupNode } from './fixtures/setup-node.js';

const TB_TOKEN = 'tb-admin-token-0123456789';
const PROJECTS = '/api/v1/workspaces/acme/projects/';
const CAPPED = `tracker-b GET ${PROJECTS}: tracker-b answered more than 1 MiB`;

async function trackerBNode(t: Test, url: string) {
  const node = await startSetupNode(t, { tierA: KEYRING, env: { TB_TOKEN } });
  await node.putDocument(
    company({
      integrations: {
        tracker_b: {
          url,
          workspace: 'acme',
          token: '${TB_TOKEN}',
          webhook_secret: 'tb-webhook-secret',
          provisioning: { projects: ['OPS'] },
        },
      },
    }),
  );
  return node;
}

/** A valid list of projects, `bytes` long or a little more, written in chunks with no Content-Length. */
function bigList(res: ServerResponse, bytes: number): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  const item = JSON.stringify({ identifier: 'P'.repeat(1000), name: 'n' }) + ',';
  res.write('{"results":[');
  for (let written = 0; written < bytes; written += item.length) res.write(item);
  res.end('{"identifier":"OPS"}]}');
}

t.test('a vendor answer over 1 MiB fails the step, in our words', async (t) => {
  const vendor = await fakeTrackerB(t, TB_TOKEN);
  vendor.answer = (seen: Seen, res) => {
    if (seen.path !== PROJECTS) return false;
    bigList(res, 3 * 1024 * 1024);
    return true;
  };
  const node = await trackerBNode(t, vendor.url);
  const res = await node.call('POST', '/setup/integrations/tracker-b/check');
  t.equal(res.status, 200);
  t.match(await json(res), {
    status: 'failed',
    reason: CAPPED,
    steps: [{ name: 'stopped', outcome: 'failed', detail: CAPPED }],
  });
});

t.test('an answer that never ends is cut at the cap, not at the deadline; the node goes on', async (t) => {
  const vendor = await fakeTrackerB(t, TB_TOKEN);
  let closed: Promise<unknown> = Promise.resolve();
  vendor.answer = (seen: Seen, res) => {
    if (seen.path !== PROJECTS) return false;
    closed = once(res, 'close');
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"results":[');
    const chunk = `${JSON.stringify({ identifier: 'x'.repeat(60_000) })},`;
    // Writes for as long as the reader takes them: stops once the node closes the connection.
    const more = (): void => {
      while (!res.destroyed && res.write(chunk));
      if (!res.destroyed) res.once('drain', more);
    };
    more();
    return true;
  };
  const node = await trackerBNode(t, vendor.url);
  const res = await node.call('POST', '/setup/integrations/tracker-b/check');
  t.match(await json(res), { status: 'failed', reason: CAPPED });
  await closed;
  t.pass('the node closed the endless answer');
  const runs = await json(await node.call('GET', '/setup/integrations/tracker-b/runs'));
  t.match(runs, { runs: [{ status: 'failed', reason: CAPPED }] });
});

t.test('an answer under the cap is read whole', async (t) => {
  const vendor = await fakeTrackerB(t, TB_TOKEN);
  vendor.answer = (seen: Seen, res) => {
    if (seen.path !== PROJECTS) return false;
    bigList(res, 900 * 1024);
    return true;
  };
  const node = await trackerBNode(t, vendor.url);
  const res = await node.call('POST', '/setup/integrations/tracker-b/check');
  t.match(await json(res), {
    status: 'succeeded',
    steps: [{ name: 'project OPS', outcome: 'ok' }],
  });
});
