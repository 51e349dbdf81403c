/**
 * The dashboard for an operator who reads it without a mouse or through a screen reader: text, muted
 * text, links and status badges keep WCAG AA contrast (4.5:1) against what is behind them in both themes,
 * and what the spend chart draws (tokens per day and band) is also a table the keyboard reaches, not only
 * a mouse-over title on each bar; a seat's page title names the seat.
 */
import t from 'tap';
import { needsChromium, openPage, startBrowser, visitRoom, type WatchedPage } from '../harness/browser.js';
import { startCompanyNode } from './fixtures/company-node.js';

const shared =
  needsChromium.skip === false ? { browser: await startBrowser(t), node: await startCompanyNode(t) } : null;

/**
 * Every visible text's contrast with its background (the nearest opaque ancestors', blended), below the
 * AA ratio for its size. Disabled controls and text hidden for screen readers are exempt (WCAG 1.4.3).
 * Browser code as text: the tests' TypeScript has no DOM library.
 */
const lowContrast = `(() => {
  const parse = (s) => {
    const m = s.match(/rgba?\\(([^)]+)\\)/);
    if (!m) return null;
    const p = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number);
    return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 };
  };
  const lum = (c) => {
    const f = (v) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
    return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b);
  };
  const over = (fg, bg) => ({
    r: fg.r * fg.a + bg.r * (1 - fg.a), g: fg.g * fg.a + bg.g * (1 - fg.a), b: fg.b * fg.a + bg.b * (1 - fg.a), a: 1,
  });
  const behind = (el) => {
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c && c.a > 0) { layers.push(c); if (c.a >= 1) break; }
    }
    return layers.reverse().reduce((bg, c) => over(c, bg), { r: 255, g: 255, b: 255, a: 1 });
  };
  const found = [];
  const seen = new Set();
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const text = walker.currentNode.textContent.trim();
    const el = walker.currentNode.parentElement;
    if (text === '' || seen.has(el)) continue;
    seen.add(el);
    if (el.getBoundingClientRect().width === 0) continue;
    if (el.closest('.visually-hidden, .skip, option, button:disabled, [aria-disabled="true"]')) continue;
    const cs = getComputedStyle(el);
    const bg = behind(el);
    const fg = over(parse(cs.color), bg);
    const [hi, lo] = [lum(fg), lum(bg)].sort((a, b) => b - a);
    const ratio = (hi + 0.05) / (lo + 0.05);
    const size = parseFloat(cs.fontSize);
    const large = size >= 24 || (parseInt(cs.fontWeight, 10) >= 700 && size >= 18.66);
    if (ratio < (large ? 3 : 4.5))
      found.push(el.tagName.toLowerCase() + '.' + el.className + ' "' + text.slice(0, 30) + '" ' + ratio.toFixed(2));
  }
  return found;
})()`;

async function visit(w: WatchedPage, room: string, label: string): Promise<void> {
  await visitRoom(w, `${shared!.node.url}/dashboard#/${room}`, label);
}

t.test(
  'text, links, muted text and status badges keep 4.5:1 contrast in the light and dark themes',
  needsChromium,
  async (t) => {
    const { browser } = shared!;
    for (const colorScheme of ['light', 'dark'] as const) {
      const w = await openPage(browser, { colorScheme });
      // The org chart: seat links and idle badges on the page background; the feed: its trace buttons.
      for (const [room, label] of [
        ['overview', 'Overview'],
        ['org', 'Org chart'],
        ['feed', 'Feed'],
        ['spend', 'Spend'],
      ] as const) {
        await visit(w, room, label);
        t.same(await w.page.evaluate<string[]>(lowContrast), [], `${colorScheme}: ${room}`);
      }
    }
  },
);

t.test("the spend chart's tokens per day are a table the keyboard reaches", needsChromium, async (t) => {
  const { browser } = shared!;
  const w = await openPage(browser);
  await visit(w, 'spend', 'Spend');
  const chart = w.page.locator('section[aria-label="Tokens per day"]');
  const summary = chart.locator('summary', { hasText: 'Tokens per day by phase as a table' });
  await summary.focus();
  await w.page.keyboard.press('Enter');
  const table = chart.getByRole('table', { name: 'Tokens per day by phase' });
  await table.waitFor();
  t.same(
    await table.locator('thead th').allTextContents(),
    ['day', 'total'],
    'a column for the day and the total (no band spent yet)',
  );
  t.equal(await table.locator('thead th[scope="col"]').count(), 2, 'column headers are scoped');
  const days = await table.locator('tbody th[scope="row"]').allTextContents();
  t.ok(days.length >= 7, `one row a day, each headed by its day (${days.length})`);
  t.match(days[0] ?? '', /^\d{4}-\d{2}-\d{2}$/);
  t.same(w.errors, []);
  t.same(await w.violations(), []);
});

t.test("a seat's page title names the seat, and follows the picker", needsChromium, async (t) => {
  const { browser } = shared!;
  const w = await openPage(browser);
  await visit(w, 'seat/iris-chen', 'Seat');
  t.equal(await w.page.title(), 'Seat iris-chen · Northwind Robotics');
  // A screen reader's list of tabs and windows tells two seats apart.
  await w.page.locator('.picker select').focus();
  await w.page.keyboard.press('ArrowDown');
  await w.page.keyboard.press('Enter');
  await w.page.locator('section[aria-label="Maria Keller"]').waitFor();
  t.equal(await w.page.title(), 'Seat maria-keller · Northwind Robotics');
  await visit(w, 'org', 'Org chart');
  t.equal(await w.page.title(), 'Org chart · Northwind Robotics', 'a room without a subject keeps its name');
});
