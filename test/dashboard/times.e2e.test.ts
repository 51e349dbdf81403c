/**
 * Every time the dashboard shows names its zone, and a time that belongs to a zone (a schedule's next run,
 * the budget window's end) is shown in that zone: an operator in Tokyo reading the Berlin company's page
 * never takes a Berlin 08:00 for a Tokyo one. The example company runs in Europe/Berlin, with one schedule in
 * America/New_York.
 */
import t from 'tap';
import { needsChromium, openPage, startBrowser } from '../harness/browser.js';
import { startCompanyNode } from './fixtures/company-node.js';

t.test('schedules and the budget window say which zone their times are in', needsChromium, async (t) => {
  const browser = await startBrowser(t);
  const node = await startCompanyNode(t);
  const snapshot = (await (await fetch(`${node.url}/stream/snapshot`)).json()) as {
    schedules: { schedules: Array<{ name: string; next_run: string; timezone: string }> };
  };
  const triage = snapshot.schedules.schedules.find((s) => s.name === 'ticket-triage')!;
  t.equal(triage.timezone, 'America/New_York');
  // The next run as New York's wall clock reads it, whatever the browser's zone.
  const [date, clock] = new Date(triage.next_run)
    .toLocaleString('sv-SE', { timeZone: 'America/New_York', hourCycle: 'h23' })
    .split(' ');

  const w = await openPage(browser, { timezoneId: 'Asia/Tokyo' });
  await w.page.goto(`${node.url}/dashboard#/schedules`);
  await w.page.waitForSelector('[data-link="live"]');
  const row = (name: string) => w.page.locator('tr', { hasText: name });
  await row('ticket-triage').waitFor();
  t.match(
    await row('ticket-triage').textContent(),
    /0 \*\/2 \* \* \*\s*America\/New_York/,
    'cron and its zone',
  );
  t.match(await row('weekly-priorities').textContent(), /0 8 \* \* MON\s*Europe\/Berlin/);
  t.match(
    await row('ticket-triage').textContent(),
    new RegExp(`${date} ${clock} (EST|EDT|GMT-[45])`),
    "the next run in the schedule's own zone, named",
  );
  const rows = await w.page.locator('table').first().locator('tbody tr').allTextContents();
  t.match(rows.at(-1), /cost-report.*disabled/, 'a disabled schedule is listed after every next run');

  await w.page.evaluate(`location.hash = '#/overview'`);
  const window = w.page.locator('section[aria-label="Budget"]');
  await window.getByText('month window').waitFor();
  // The month ends at midnight in Berlin (CET in winter), 23:00 UTC, 08:00 in Tokyo.
  t.match(
    await window.textContent(),
    /month window \(Europe\/Berlin\) until \d{4}-\d{2}-01 00:00:00 (CET|CEST|GMT\+[12])/,
    "the budget window ends at midnight in the company's zone, named",
  );

  await w.page.evaluate(`location.hash = '#/feed'`);
  const stamp = w.page.locator('ol.feed time').first();
  await stamp.waitFor();
  t.match(
    await stamp.getAttribute('title'),
    /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} (GMT\+9|JST)$/,
    'a feed time names the browser zone',
  );
  t.same(await w.violations(), []);
  t.same(w.errors, []);
});
