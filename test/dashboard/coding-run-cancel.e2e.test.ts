/**
 * An operator cancels a live coding run from the dashboard: the run's Cancel opens a confirm step with an
 * optional reason, the node stops the run (`POST /sandbox-runs/{id}/cancel`), the page says it is
 * cancelled and the run leaves the list. Without a token the action is offered disabled and does nothing.
 * The run is a real one: a seat's turn (woken by a signed webhook) launches the fake coding agent, held.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import t from 'tap';
import { fakeAgentCommand } from '../actors/sandbox/harness.js';
import { sendIssueAssigned } from '../fixtures/codehost-a-delivery.js';
import { startLlmServer } from '../fixtures/llm/llm-server.js';
import { sandboxTurnScript } from '../fixtures/llm/sandbox-turn.js';
import { needsChromium, openPage, startBrowser } from '../harness/browser.js';
import { startCompanyNode, TOKEN } from './fixtures/company-node.js';
import { localProviders } from '../fixtures/llm/providers.js';

const SECRET = 'codehost-a-dashboard-secret-0123';
const script = sandboxTurnScript('Fix the login page', 'The coding run was cancelled.');

interface Run {
  sandbox_id: string;
  status: string;
  error?: string | null;
}

t.test('an operator cancels a held coding run from the overview', needsChromium, async (t) => {
  const llm = await startLlmServer({ wire: 'openai', script });
  t.teardown(() => llm.close());
  const company = JSON.stringify({
    name: 'Acme',
    timezone: 'UTC',
    providers: localProviders(llm.baseUrl),
    integrations: { codehost_a: { webhook_secret: SECRET } },
    roles: [{ name: 'Bob', sandbox: { env: { FAKE_HOLD: '1' }, default_coding_agent: fakeAgentCommand } }],
  });
  const node = await startCompanyNode(t, { company });
  const runs = async (): Promise<Run[]> =>
    ((await (await fetch(`${node.url}/sandbox-runs`)).json()) as { runs: Run[] }).runs;
  // Whatever happens, the held agent is let go (it runs detached, outside the node).
  const control = (id: string) => join(dirname(node.configFile), 'data', 'sandboxes', id, 'control');
  t.teardown(async () => {
    for (const run of await runs().catch(() => []))
      if (existsSync(control(run.sandbox_id))) writeFileSync(join(control(run.sandbox_id), 'release'), '');
  });

  const browser = await startBrowser(t);
  const anonymous = await openPage(browser);
  await anonymous.page.goto(`${node.url}/dashboard#/overview`);
  await anonymous.page.waitForSelector('[data-link="live"]');
  t.equal((await sendIssueAssigned(node.url, SECRET, ['bob'])).status, 200, 'the wake is delivered');

  const card = anonymous.page.locator('section[aria-label="Coding runs"]');
  const row = card.locator('tbody tr', { hasText: 'Fix the login page' });
  await row.getByText('running').waitFor({ timeout: 60_000 });
  const [run] = await runs();
  t.equal(run?.status, 'running', 'the run holds');
  const offered = row.getByRole('button', { name: 'Cancel run' });
  t.equal(await offered.getAttribute('aria-disabled'), 'true', 'without a token the cancel is disabled');
  t.equal(await offered.getAttribute('title'), 'Cancelling a run needs an operator token.');
  // Playwright waits for an enabled button; the click a person could still make is forced.
  await offered.click({ force: true });
  t.equal(await card.locator('form.confirm').count(), 0, 'and opens no confirm step');

  const w = await openPage(browser);
  await w.page.addInitScript(`sessionStorage.setItem('svc.token', '${TOKEN}')`);
  await w.page.goto(`${node.url}/dashboard#/overview`);
  await w.page.waitForSelector('[data-link="live"]');
  const mine = w.page.locator('section[aria-label="Coding runs"]');
  const held = mine.locator('tbody tr', { hasText: 'Fix the login page' });
  await held.getByRole('button', { name: 'Cancel run' }).click();
  const step = held.locator('form.confirm');
  t.match(
    await step.textContent(),
    new RegExp(`Cancel coding run ${run!.sandbox_id} \\(Fix the login page\\)\\?`),
  );
  // Backing out leaves the run alone.
  await step.getByRole('button', { name: 'Keep it' }).click();
  t.equal(await held.locator('form.confirm').count(), 0, 'backed out');
  t.equal(await w.page.evaluate('document.activeElement?.textContent'), 'Cancel run', 'the focus is back');
  t.equal((await runs())[0]?.status, 'running', 'nothing was stopped');

  await held.getByRole('button', { name: 'Cancel run' }).click();
  await held.getByLabel('Reason (optional)').fill('wrong task');
  await held.getByRole('button', { name: 'Cancel the run' }).click();
  const outcome = mine.getByRole('status');
  await outcome.getByText(`Coding run ${run!.sandbox_id} is cancelled.`).waitFor();
  t.pass('the page says what came of it');
  t.equal(
    await w.page.evaluate('document.activeElement?.getAttribute("role")'),
    'status',
    'the focus is on what came of it, not lost with the row',
  );
  await mine.getByText('No coding run is going on', { exact: false }).waitFor({ timeout: 60_000 });
  t.pass('the ended run leaves the list');
  t.match(
    (await runs())[0],
    { sandbox_id: run!.sandbox_id, status: 'cancelled', error: 'cancelled by ops: wrong task' },
    'the node recorded it cancelled, by the token, with the reason',
  );
  t.same(await w.violations(), []);
  t.same(w.errors, []);
  t.same(anonymous.errors, []);
});
