/**
 * A change of the node's health status is announced once to assistive technology: the header holds a polite
 * live region, in the page from the start and silent at load, whose words change only when the status does
 * (ok → shed → ok). The node's 5 s pulse with the same status, or with only other fields moved, leaves it
 * untouched (a region written again may be read again). The node's own frames are held back by a route on the
 * page's socket once the page is drawn, and the test sends its own.
 */
import t from 'tap';
import { needsChromium } from '../harness/browser.js';
import { servingOverview } from './fixtures/serving-overview.js';

const watch = `
  window.__announced = 0;
  const region = document.querySelector('header [data-announce="health"]');
  new MutationObserver((records) => { window.__announced += records.length; })
    .observe(region, { childList: true, subtree: true, characterData: true });
`;

t.test(
  'a change of node health is announced once, politely; an identical pulse says nothing',
  needsChromium,
  async (t) => {
    const { w, stream } = await servingOverview(t);
    const badge = w.page.locator('header .badge[title="health status"]');
    stream.hold();
    const health = stream.snapshotHealth();
    t.ok(health, 'the snapshot carried the health section');
    const region = w.page.locator('header [data-announce="health"]');
    t.equal(await region.getAttribute('role'), 'status', 'the region is a status');
    t.equal(await region.textContent(), '', 'nothing is announced at load');
    await w.page.evaluate(watch);
    const announced = (): Promise<number> => w.page.evaluate<number>('window.__announced');
    const send = (over: Record<string, unknown>): void => stream.send('health', { ...health, ...over });

    send({ status: 'shed', posture: 'shed' });
    await badge.filter({ hasText: /^shed$/ }).waitFor();
    t.match(await region.textContent(), /health.*shed.*was ok/i, 'the change is announced with what it was');
    const once = await announced();
    t.ok(once > 0, 'the region was written');
    // The same status again, then with only other fields moved: an answered pulse, and nothing more said.
    send({ status: 'shed', posture: 'shed' });
    send({ status: 'shed', posture: 'shed', clients: 9 });
    await w.page
      .locator('section[aria-label="Node"] .stat', { hasText: 'dashboards' })
      .filter({ hasText: /9$/ })
      .waitFor();
    t.equal(await announced(), once, 'an identical pulse writes nothing to the region');

    send({ status: 'ok', posture: 'normal' });
    await badge.filter({ hasText: /^ok$/ }).waitFor();
    t.match(await region.textContent(), /health.*ok.*was shed/i, 'the way back is announced too');
    t.same(await w.violations(), []);
    t.same(w.errors, []);
  },
);
