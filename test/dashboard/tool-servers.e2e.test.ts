/**
 * The tools room says why a tool server is down: its last failure (when, and the error the node recorded)
 * and, while it waits to restart, when it is tried again, not only that it is in backoff.
 */
import t from 'tap';
import { needsChromium, openPage, startBrowser } from '../harness/browser.js';
import { until } from '../harness/until.js';
import { startCompanyNode, TOKEN } from './fixtures/company-node.js';

const company = {
  name: 'Broken Tools Co',
  mission: 'Notice a broken tool server',
  timezone: 'UTC',
  mcp_servers: [
    {
      name: 'broken',
      shared: true,
      command: process.execPath,
      args: ['-e', 'console.error("cannot open the handbook"); process.exit(3)'],
    },
  ],
  roles: [{ name: 'Ada Lane', handle: 'ada', goal: 'Answer what comes in.' }],
};

t.test('a failing tool server shows its last failure in its row', needsChromium, async (t) => {
  const browser = await startBrowser(t);
  const node = await startCompanyNode(t, { company: JSON.stringify(company) });
  // Wait until the node has recorded the failure.
  const failure = await until(
    async () => {
      const res = await fetch(`${node.url}/mcp-servers`, {
        headers: { authorization: `Bearer ${TOKEN}` },
        signal: AbortSignal.timeout(5_000),
      });
      const body = (await res.json()) as {
        nodes: Array<{
          servers: Array<{ server: string; last_failure: { at: string; error: string } | null }>;
        }>;
      };
      return body.nodes.flatMap((n) => n.servers).find((s) => s.server === 'broken')?.last_failure ?? null;
    },
    (last) => last !== null,
    { timeoutMs: 20_000, everyMs: 200 },
  );
  t.ok(failure, 'the node recorded a failure');

  const w = await openPage(browser);
  await w.page.addInitScript(`sessionStorage.setItem('svc.token', '${TOKEN}')`);
  await w.page.goto(`${node.url}/dashboard#/tools`);
  await w.page.waitForSelector('[data-link="live"]');
  const row = w.page.locator('tr', { hasText: 'broken' });
  await row.waitFor();
  await row.getByText(failure!.error.split('\n')[0]!.slice(0, 40), { exact: false }).waitFor();
  t.pass("the failure's error is in the server's row");
  t.match(await w.page.locator('thead').last().textContent(), /last failure/);
  t.same(await w.violations(), []);
  t.same(w.errors, []);
});
