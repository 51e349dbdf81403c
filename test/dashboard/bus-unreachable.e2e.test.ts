/**
 * A node cut from its bus says in every room that what is shown may be behind (ops/fleet.md "While the bus is
 * unreachable"): the read routes carry `Svc-Stale: bus unreachable since <instant>`, the socket only `/health`
 * `status: isolated`, and a red `isolated` badge in the header said nothing of what it means for the seats,
 * the feed and the spend on screen. A `svc serve` child reaches its nats-server through a TCP proxy; the link
 * is cut, and the page (left open, no reload) says since when; once the link is back the notice goes.
 */
import t from 'tap';
import { needsChromium, openPage, startBrowser } from '../harness/browser.js';
import { startProxiedNode } from '../harness/proxied-node.js';
import { until } from '../harness/until.js';

t.test(
  'a node cut from its bus: every room says its figures are as last read, since when, until the link is back',
  needsChromium,
  async (t) => {
    const browser = await startBrowser(t);
    const { proxy, url } = await startProxiedNode(t, 'svc-dash-unlinked-');

    const w = await openPage(browser);
    await w.page.goto(`${url}/dashboard#/org`);
    await w.page.waitForSelector('[data-link="live"]');
    await w.page.getByText('Ada').first().waitFor();
    const notice = w.page.locator('[data-notice="bus-unreachable"]');
    t.equal(await notice.count(), 0, 'linked: no notice');

    proxy.blackhole();
    proxy.cut();
    await notice.waitFor({ timeout: 45_000 });
    const said = (await notice.textContent()) ?? '';
    t.match(said, /cannot reach its bus/, `the page says what happened: ${said}`);
    t.match(said, /as it last read them/, 'and what that means for what is shown');
    const stale = (await fetch(`${url}/org`)).headers.get('svc-stale') ?? '';
    const since = stale.replace('bus unreachable since ', '');
    t.match(since, /^\d{4}-/, `the node says since when: ${stale}`);
    t.equal(
      await notice.locator('time').getAttribute('datetime'),
      since,
      'the notice says the same instant as Svc-Stale',
    );
    t.equal(await notice.locator('xpath=..').getAttribute('role'), 'status', 'announced politely');
    await w.page.goto(`${url}/dashboard#/`);
    await notice.waitFor();
    t.pass('shown in every room');

    proxy.restore();
    await until(
      async () => (await fetch(`${url}/org`)).headers.get('svc-stale'),
      (h) => h === null,
      { timeoutMs: 45_000 },
    );
    await notice.waitFor({ state: 'detached', timeout: 30_000 });
    t.pass('the notice goes once the link is back');
    t.same(await w.violations(), []);
    t.same(w.errors, []);
  },
);
