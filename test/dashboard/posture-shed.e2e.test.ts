/**
 * A node shed from rotation (posture `shed`: it lagged the fleet's active epoch more than 45 s while a peer
 * had it, spec "Node configuration state") says so in words in the polite status region, as an error: how
 * far behind it is, the epoch it runs, that `/ready` answers 503 and where to look; the words go once it
 * serves again. A real shed takes a fleet, 45 s and a node that sees an activation but cannot start its
 * apply (one held mid-apply reads `wait`, never `shed`), so the page's socket carries the real node's own
 * health with the posture moved, by a route on the page.
 */
import t from 'tap';
import { needsChromium } from '../harness/browser.js';
import { servingOverview } from './fixtures/serving-overview.js';

t.test(
  'a shed node says how far behind it is, what it runs and that it is out of rotation; the words go when it serves',
  needsChromium,
  async (t) => {
    const { w, stream } = await servingOverview(t);
    const notice = w.page.locator('[data-notice="posture"]');
    t.equal(await notice.count(), 0, 'serving: no notice');
    stream.hold();
    const health = stream.snapshotHealth()!;
    t.ok(health, 'the snapshot carried the health section');
    const epoch = Number(health['applied_epoch']);

    stream.send('health', { ...health, status: 'shed', posture: 'shed', stall_lag_seconds: 52 });
    await notice.waitFor();
    const said = (await notice.textContent()) ?? '';
    t.match(said, /left rotation \(shed\)/, `shed: ${said}`);
    t.match(said, /past 45 s while a peer had applied it/, 'why: the lag rule');
    t.match(said, /now 52 s behind/, 'how far behind, as the node reports it');
    t.ok(said.includes(`runs epoch ${epoch} `), 'the epoch it runs meanwhile');
    t.match(said, /\/ready answers 503 \(shed\)/, 'out of rotation');
    t.match(said, /fleet room/, 'and where to look');
    t.match(await notice.getAttribute('class'), /\berror\b/, 'said as an error');
    t.equal(await notice.locator('xpath=..').getAttribute('role'), 'status', 'announced politely');
    // The hash moves (no reload: the page keeps its socket and what it was told).
    await w.page.evaluate("location.hash = '#/org'");
    await w.page.locator('h1.room-title', { hasText: 'Org chart' }).waitFor();
    await notice.filter({ hasText: 'shed' }).waitFor();
    t.pass('shown in every room');

    stream.send('health', { ...health, status: 'ok', posture: 'serve' });
    await notice.waitFor({ state: 'detached' });
    t.pass('the words go once it serves');
    t.same(await w.violations(), []);
    t.same(w.errors, []);
  },
);
