/**
 * Spend a provider's cut stream left estimated, in the spend room of a real browser: a signed webhook wakes
 * a seat whose model's answer is cut mid-stream, and the breakdown's total and the org's month say how
 * much of them is estimated; a room whose spend is all reported says nothing of it.
 */
import t from 'tap';
import { sendIssueAssigned } from '../fixtures/codehost-a-delivery.js';
import { startLlmServer } from '../fixtures/llm/llm-server.js';
import { localProviders } from '../fixtures/llm/providers.js';
import { needsChromium, openPage, startBrowser } from '../harness/browser.js';
import { startCompanyNode } from './fixtures/company-node.js';

const SECRET = 'codehost-a-dashboard-secret-0123';

t.test('the spend room notes how much of its totals is estimated', needsChromium, async (t) => {
  const llm = await startLlmServer({
    wire: 'openai',
    script: [
      // The plan of the first turn: a reported answer, then the execute call is cut mid-stream.
      {
        kind: 'text',
        text: '{"decision":"plan","steps":["look"],"success_criteria":["looked"],"tools":[]}',
        usage: { prompt_tokens: 100, completion_tokens: 20 },
      },
      { kind: 'truncate', text: 'I am looking at the issue and will' },
    ],
  });
  t.teardown(() => llm.close());
  const company = JSON.stringify({
    name: 'Acme',
    timezone: 'UTC',
    token_budget: 1_000_000,
    providers: localProviders(llm.baseUrl),
    integrations: { codehost_a: { webhook_secret: SECRET } },
    roles: [{ name: 'Cy', goal: 'Triage issues' }],
  });
  const node = await startCompanyNode(t, { company });
  const browser = await startBrowser(t);
  const w = await openPage(browser);
  await w.page.goto(`${node.url}/dashboard#/spend`);
  await w.page.waitForSelector('text=tokens in');
  t.equal(await w.page.locator('text=estimated').count(), 0, 'no spend yet: no note');

  t.equal((await sendIssueAssigned(node.url, SECRET, ['cy'])).status, 200);
  await llm.waitForRequests(2);
  // The spend moves on the next tokens push: the room asks again and shows both counts.
  const breakdown = w.page.locator('p', { hasText: /tokens in \d+ calls \(of which ~[\d,]+ estimated\)/ });
  await breakdown.waitFor();
  const month = w.page.locator('p', { hasText: /tokens used this month/ });
  await month.waitFor();
  t.match(await month.textContent(), /\(of which ~[\d,]+ estimated\)/, "and so does the org's month");
  const estimated = (await breakdown.textContent())!.match(/~([\d,]+) estimated/)![1]!.replaceAll(',', '');
  const res = await fetch(`${node.url}/tokens/breakdown`);
  const body = (await res.json()) as { totals: { estimated_tokens: number; total_tokens: number } };
  t.equal(String(body.totals.estimated_tokens), estimated, 'the figure the node answers');
  t.ok(body.totals.estimated_tokens < body.totals.total_tokens, 'part of the total, not all of it');
});
