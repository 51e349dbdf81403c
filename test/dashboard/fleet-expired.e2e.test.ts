/**
 * The fleet room lists the nodes whose presence ran out (the `/fleet` answer's `expired`): a node killed
 * -9 leaves its record behind, and an operator sees it there, instead of nowhere, and removes it there
 * (`POST /fleet/broker/remove/{node}`) through a confirm step.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import t from 'tap';
import { needsChromium, openPage, startBrowser } from '../harness/browser.js';
import { startCompanyNode, TOKEN } from './fixtures/company-node.js';

t.test(
  'a dead node whose presence ran out is listed as expired in the fleet room, and removed from there',
  needsChromium,
  async (t) => {
    const browser = await startBrowser(t);
    const node = await startCompanyNode(t, { bare: true, extra: 'node: {id: gone, seat_lease_seconds: 3}' });
    node.run.kill('SIGKILL');
    await node.run.exited;
    // The same store under another node id: the killed node's presence is left to run out.
    writeFileSync(node.configFile, readFileSync(node.configFile, 'utf8').replace('id: gone', 'id: here'));
    await node.restart();

    const w = await openPage(browser);
    await w.page.addInitScript(`sessionStorage.setItem('svc.token', '${TOKEN}')`);
    await w.page.goto(`${node.url}/dashboard#/fleet`);
    await w.page.waitForSelector('[data-link="live"]');
    const nodes = w.page.locator('section[aria-label="Nodes"]');
    const expired = nodes.locator('table', { hasText: 'Expired nodes' });
    // The room re-reads the fleet on its own (on its 2 s beat) once the presence has run out.
    await expired.waitFor({ timeout: 60_000 });
    t.same(
      await expired.locator('tbody td').first().textContent(),
      'gone',
      'the dead node is listed among the expired',
    );
    t.match(await expired.locator('tbody time').textContent(), /ago$/, 'with when its presence ran out');

    await expired.getByRole('button', { name: 'Remove node' }).click();
    const step = expired.locator('form.confirm');
    t.match(await step.textContent(), /Remove node gone\?/, 'the removal asks first');
    await step.getByRole('button', { name: 'Remove gone' }).click();
    await nodes.getByRole('status').getByText('Node gone is removed.').waitFor();
    t.pass('the page says what came of it');
    await nodes.getByText('No expired node', { exact: false }).waitFor();
    t.pass('the list is read again without it');
    const fleet = (await (
      await fetch(`${node.url}/fleet`, { headers: { authorization: `Bearer ${TOKEN}` } })
    ).json()) as { expired?: Array<{ node: string }> };
    t.same(fleet.expired ?? [], [], 'the node forgot its record');
    t.same(await w.violations(), []);
    t.same(w.errors, []);
  },
);
