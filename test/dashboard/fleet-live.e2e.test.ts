/**
 * The fleet room follows the fleet by itself: a node joining, a node leaving, its seat moving to the peer and
 * the scheduler duty failing over show in the room without a `health` frame. Two `svc serve` children on one
 * nats-server with a 3 s lease; every page's socket is routed so that no `health` frame reaches it (the room
 * must not wait on the node's 5 s pulse to see a fleet change): with no timer of its own, the room sees a lease
 * move and a duty fail over by the node's `fleet` push alone.
 */
import t from 'tap';
import type { Browser } from 'playwright-core';
import { needsChromium, openPage, startBrowser, type WatchedPage } from '../harness/browser.js';
import { startFleetNode, storeFleetCompany, type FleetNode } from '../harness/fleet-node.js';
import { startNatsServer } from '../harness/nats-server.js';
import { TOKEN } from '../harness/serve-node.js';

/** The fleet room of `node`, its socket never passing a `health` frame. */
async function fleetRoomWithoutHealth(browser: Browser, node: FleetNode): Promise<WatchedPage> {
  const w = await openPage(browser);
  await w.page.routeWebSocket(/\/ws\/stream$/, (ws) => {
    const server = ws.connectToServer();
    server.onMessage((message) => {
      if (typeof message === 'string' && message.startsWith('{"kind":"health"')) return;
      ws.send(message);
    });
  });
  await w.page.addInitScript(`sessionStorage.setItem('svc.token', '${TOKEN}')`);
  await w.page.goto(`${node.url}/dashboard#/fleet`);
  await w.page.waitForSelector('[data-link="live"]');
  return w;
}

const nodesTable = (w: WatchedPage) =>
  w.page.locator('section[aria-label="Nodes"] table', { hasText: /^Read / }).first();
const leasesTable = (w: WatchedPage) =>
  w.page.locator('section[aria-label="Nodes"] table', { hasText: 'Seat leases' });

t.test(
  'a node joining, a node leaving, its seat and its duty moving show in the fleet room without a health frame',
  needsChromium,
  async (t) => {
    const browser = await startBrowser(t);
    const nats = await startNatsServer({ t });
    const a = await startFleetNode(t, 'node-a', nats.url, { leaseSeconds: 3 });
    await storeFleetCompany(t, a);

    const onA = await fleetRoomWithoutHealth(browser, a);
    await nodesTable(onA).locator('tbody tr', { hasText: 'node-a' }).waitFor();
    const b = await startFleetNode(t, 'node-b', nats.url, { leaseSeconds: 3 });
    await b.run.waitForLog((l) => l.msg === 'config applied');
    await nodesTable(onA).locator('tbody tr', { hasText: 'node-b' }).waitFor({ timeout: 20_000 });
    t.pass('the node that joined is listed');

    const onB = await fleetRoomWithoutHealth(browser, b);
    await nodesTable(onB)
      .locator('tbody tr', { hasText: 'node-a' })
      .filter({ hasText: 'scheduler' })
      .waitFor({ timeout: 20_000 });
    await leasesTable(onB).locator('tbody tr', { hasText: 'node-a' }).waitFor({ timeout: 20_000 });
    t.pass('node-a holds the duty and the seat');

    a.run.kill('SIGTERM');
    await a.run.exited;
    await nodesTable(onB)
      .locator('tbody tr', { hasText: 'node-a' })
      .waitFor({ state: 'detached', timeout: 20_000 });
    t.pass('the node that left is no longer listed');
    await nodesTable(onB)
      .locator('tbody tr', { hasText: 'node-b' })
      .filter({ hasText: 'scheduler' })
      .waitFor({ timeout: 20_000 });
    t.pass('the duty failed over to node-b');
    await leasesTable(onB).locator('tbody tr', { hasText: 'node-b' }).waitFor({ timeout: 20_000 });
    t.equal(await leasesTable(onB).locator('tbody tr', { hasText: 'node-a' }).count(), 0, 'the seat moved');
    for (const w of [onA, onB]) t.same(await w.violations(), []);
    t.same(onB.errors, []);
  },
);
