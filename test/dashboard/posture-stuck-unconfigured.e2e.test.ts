/**
 * A node running no configuration whose apply of the active revision fails (a restart whose own epoch no
 * longer applies, or a fresh node's first apply) is `unconfigured` and `stuck` with nothing to fall back to
 * (ops/config.md): the page says that the company exists but does not apply here, that the node retries,
 * and where to look — never "no company yet, push one", which would have an operator push a second company.
 * The page's socket carries the real node's health with its state moved, as in posture-shed.
 */
import t from 'tap';
import { needsChromium } from '../harness/browser.js';
import { servingOverview } from './fixtures/serving-overview.js';

t.test(
  'a node that runs nothing because its apply fails says so and never asks for a first company',
  needsChromium,
  async (t) => {
    const { w, stream } = await servingOverview(t);
    const notice = w.page.locator('[data-notice="posture"]');
    stream.hold();
    const health = stream.snapshotHealth()!;

    const stuck = {
      ...health,
      status: 'unconfigured',
      configured: false,
      posture: 'stuck',
      applied_epoch: 0,
    };
    stream.send('health', stuck);
    await notice.filter({ hasText: 'stuck' }).waitFor();
    const said = (await notice.textContent()) ?? '';
    t.match(said, /cannot apply the active configuration \(stuck\)/, `stuck: ${said}`);
    t.match(said, /runs no configuration/, 'what it runs: nothing');
    t.match(said, /\/ready answers 503/, 'out of rotation');
    t.match(said, /tries again every 15 s/, 'that it retries');
    t.notMatch(said, /no company yet|svc config put/, 'never asks for a first company');
    t.match(await notice.getAttribute('class'), /\berror\b/, 'said as an error');

    stream.send('health', { ...health, status: 'ok', posture: 'serve' });
    await notice.waitFor({ state: 'detached' });
    t.pass('the words go once an apply succeeds');
    t.same(await w.violations(), []);
    t.same(w.errors, []);
  },
);
