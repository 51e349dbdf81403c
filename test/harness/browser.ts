/**
 * Headless Debian chromium driven by playwright-core (which never downloads a browser of its own), with
 * everything a dashboard test must see fail recorded per page: console errors, uncaught exceptions, and
 * Content-Security-Policy violations (from the page's own `securitypolicyviolation` events, which the
 * browser fires for every refused load, inline block or eval).
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'tap';
import { chromium, type Browser, type Page } from 'playwright-core';
import { root } from './child.js';

export const CHROMIUM = process.env['SVC_CHROMIUM'] ?? '/usr/bin/chromium';

export interface WatchedPage {
  readonly page: Page;
  /** Console errors and uncaught exceptions, in order. */
  readonly errors: string[];
  /** CSP violations the page reported so far. */
  violations(): Promise<string[]>;
}

/** `{skip}` for a browser test: a reason when this machine has no chromium, else false. */
export const needsChromium = {
  skip: existsSync(CHROMIUM)
    ? false
    : `no chromium at ${CHROMIUM} (scripts/test.sh installs the Debian package)`,
};

/** Starts chromium for one test, closed at its end. */
export async function startBrowser(t: Test): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    // Root in a container has no user namespace for the sandbox; the pages are our own.
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
  t.teardown(() => browser.close());
  return browser;
}

export async function openPage(
  browser: Browser,
  opts: { colorScheme?: 'light' | 'dark'; timezoneId?: string } = {},
): Promise<WatchedPage> {
  const context = await browser.newContext({
    viewport: { width: 1280, height: 860 },
    colorScheme: opts.colorScheme ?? 'light',
    reducedMotion: 'reduce',
    ...(opts.timezoneId ? { timezoneId: opts.timezoneId } : {}),
  });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => errors.push(`exception: ${error.message}`));
  // Runs before the page's own scripts, outside its policy; it only listens.
  // (Browser code as text: the tests' TypeScript has no DOM library.)
  await page.addInitScript(`
    window.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      window.__cspViolations.push(e.violatedDirective + ' blocked ' + (e.blockedURI || 'inline') + ' at ' + e.sourceFile + ':' + e.lineNumber);
    });
  `);
  return {
    page,
    errors,
    violations: () => page.evaluate<string[]>('window.__cspViolations || []'),
  };
}

/** Opens `url` (a dashboard room) and waits for its `main` landmark `label`, the live link, and nothing left loading. */
export async function visitRoom(w: WatchedPage, url: string, label: string): Promise<void> {
  await w.page.goto(url);
  await w.page.waitForSelector(`main[aria-label="${label}"]`);
  await w.page.waitForSelector('[data-link="live"]');
  // (Playwright's locators: a string predicate would be an eval, which the dashboard's policy refuses.)
  await w.page.locator('main [aria-busy="true"]').first().waitFor({ state: 'detached' });
}

/** Where a test's screenshots go: docs/screenshots/ when SVC_UPDATE_SCREENSHOTS=1, else a temp dir removed after. */
export function screenshotDir(t: Test): string {
  if (process.env['SVC_UPDATE_SCREENSHOTS'] === '1') {
    const dir = join(root, 'docs', 'screenshots');
    mkdirSync(dir, { recursive: true });
    return dir;
  }
  const dir = mkdtempSync(join(tmpdir(), 'svc-shots-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * Pauses the page's installed clock `aheadMs` past this moment. Until paused the clock follows real time,
 * so on a loaded machine the call may reach the page after that instant and Playwright refuses to go back
 * ("Cannot fast-forward to the past"); it has paused the clock by then, so asking again from a fresh now
 * succeeds.
 */
export async function pauseAhead(page: Page, aheadMs: number): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await page.clock.pauseAt(Date.now() + aheadMs);
      return;
    } catch (error) {
      if (attempt >= 3 || !/fast-forward to the past/.test(String(error))) throw error;
    }
  }
}
