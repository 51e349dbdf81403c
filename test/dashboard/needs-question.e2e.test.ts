/**
 * A seat waiting on people shows what it asks, not only that it waits: the org chart gives the question cut
 * short (whole in its title) beside the `needs` badge, and the seat room gives it whole. The question is a
 * real record of the seat's own log, which the node folds at start.
 */
import { dirname, join } from 'node:path';
import t from 'tap';
import { ensureCatalogue, openMemoryBus, Subjects } from '../../bus/index.js';
import { needsChromium, openPage, startBrowser } from '../harness/browser.js';
import { startCompanyNode } from './fixtures/company-node.js';

const question =
  'Which branch do we ship the telemetry pipeline fix from: main, or the release branch cut on Monday for the customer demo?';

t.test('a waiting seat shows its question in the org chart and its room', needsChromium, async (t) => {
  const node = await startCompanyNode(t);
  node.run.kill('SIGTERM');
  await node.run.exited;
  const bus = await openMemoryBus({ storeDir: join(dirname(node.configFile), 'data') });
  await ensureCatalogue(bus);
  const need = {
    id: 'need-1',
    to: 'maria-keller',
    question,
    context: null,
    urgency: 'normal',
    asked_at: new Date(Date.now() - 2 * 3600_000).toISOString(),
    turn_id: 'turn-1',
  };
  const record = { kind: 'need_recorded', at: need.asked_at, node: 'node-0', need };
  await bus.publish(Subjects.seatLog('theo-park'), new TextEncoder().encode(JSON.stringify(record)));
  await bus.close();
  await node.restart();

  const browser = await startBrowser(t);
  const w = await openPage(browser);
  await w.page.goto(`${node.url}/dashboard#/org`);
  await w.page.waitForSelector('[data-link="live"]');
  const seat = w.page.locator('li.seat[data-handle="theo-park"]');
  await seat.locator('.badge', { hasText: 'needs' }).waitFor();
  const asks = seat.locator('.asks');
  const shown = (await asks.textContent()) ?? '';
  t.match(shown, /^asks: Which branch do we ship the telemetry pipeline fix from/, 'the question shows');
  t.ok(shown.endsWith('…') && shown.length < question.length, 'cut short');
  t.equal(await asks.getAttribute('title'), question, 'whole in its title');
  t.equal(
    await w.page.locator('li.seat[data-handle="nia-okafor"] .asks').count(),
    0,
    'a seat that asks nothing shows no question',
  );

  await w.page.evaluate(`location.hash = '#/seat/theo-park'`);
  const waiting = w.page.locator('main .notice', { hasText: 'Waiting on people' });
  await waiting.waitFor();
  t.match(await waiting.textContent(), `since 2h ago: ${question}`, 'the seat room gives it whole');
  t.same(await w.violations(), []);
  t.same(w.errors, []);
});

t.test(
  'a 100,000-character question is shown cut in the seat room, whole on demand',
  needsChromium,
  async (t) => {
    const long = 'Which one? '.repeat(10_000).slice(0, 100_000);
    const node = await startCompanyNode(t);
    node.run.kill('SIGTERM');
    await node.run.exited;
    const bus = await openMemoryBus({ storeDir: join(dirname(node.configFile), 'data') });
    await ensureCatalogue(bus);
    const asked_at = new Date(Date.now() - 60_000).toISOString();
    const need = {
      id: 'need-2',
      to: 'maria-keller',
      question: long,
      context: null,
      urgency: 'high',
      asked_at,
      turn_id: 'turn-2',
    };
    const record = { kind: 'need_recorded', at: asked_at, node: 'node-0', need };
    await bus.publish(Subjects.seatLog('sam-rivera'), new TextEncoder().encode(JSON.stringify(record)));
    await bus.close();
    await node.restart();

    const browser = await startBrowser(t);
    const w = await openPage(browser);
    await w.page.goto(`${node.url}/dashboard#/seat/sam-rivera`);
    await w.page.waitForSelector('[data-link="live"]');
    const waiting = w.page.locator('main .notice', { hasText: 'Waiting on people' });
    await waiting.waitFor();
    t.ok((await waiting.textContent())!.length < 1_000, 'the question is cut');
    await waiting.getByRole('button', { name: 'Show all 100,000 characters of the question' }).click();
    t.equal(await waiting.locator('.long-text.open').textContent(), long, 'and whole on demand');
    t.same(w.errors, []);
  },
);
