/**
 * A turn against the local fake model, watched in a real browser: a signed webhook wakes one seat, the
 * seat room shows the turn live (phase, rounds, the tool call as it happens) while the model's last
 * answer is held, then the finished phases land in its LLM history, all without a reload.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { sendIssueAssigned } from '../fixtures/codehost-a-delivery.js';
import { startLlmServer } from '../fixtures/llm/llm-server.js';
import type { Step } from '../fixtures/llm/script.js';
import { needsChromium, openPage, startBrowser } from '../harness/browser.js';
import { root } from '../harness/child.js';
import { startCompanyNode } from './fixtures/company-node.js';
import { localProviders } from '../fixtures/llm/providers.js';

const SECRET = 'codehost-a-dashboard-secret-0123';

const script: Step[] = [
  {
    kind: 'text',
    text: '{"decision":"plan","steps":["note the bug"],"success_criteria":["the bug is noted"],"tools":["memory_remember"]}',
    usage: { prompt_tokens: 100, completion_tokens: 20 },
  },
  {
    kind: 'tool_calls',
    calls: [
      { id: 'call-1', name: 'memory_remember', arguments: { content: 'bug #7: the login page is blank' } },
    ],
    usage: { prompt_tokens: 120, completion_tokens: 10 },
  },
  {
    kind: 'text',
    hold: 'answer',
    text: 'I noted bug #7 for later.',
    usage: { prompt_tokens: 150, completion_tokens: 5 },
  },
  {
    kind: 'text',
    text: '{"verdict":"done","notes":"noted"}',
    usage: { prompt_tokens: 90, completion_tokens: 8 },
  },
];

t.test('a turn shows its progress live in the seat room', needsChromium, async (t) => {
  const llm = await startLlmServer({ wire: 'openai', script });
  t.teardown(() => llm.close());
  const company = JSON.stringify({
    name: 'Acme',
    mission: 'Ship useful things',
    timezone: 'UTC',
    providers: localProviders(llm.baseUrl),
    integrations: { codehost_a: { webhook_secret: SECRET } },
    roles: [
      { name: 'Ada', goal: 'Keep the lights on' },
      { name: 'Cy', goal: 'Triage issues' },
    ],
  });
  const node = await startCompanyNode(t, { company });
  const browser = await startBrowser(t);
  const w = await openPage(browser);
  await w.page.goto(`${node.url}/dashboard#/seat/cy`);
  await w.page.waitForSelector('[data-link="live"]');
  await w.page.waitForSelector('text=No turn in flight.');

  const delivery = await sendIssueAssigned(node.url, SECRET, ['cy']);
  t.equal(delivery.status, 200, 'the delivery is accepted');

  // The model's last execute answer is held: the turn is in flight, its tool call already made.
  await llm.waitForRequests(3);
  const live = w.page.locator('.live-turn');
  // The tool run in the execute phase's list: the plan's last frame (its answer names the tool too) may
  // still be what the room shows when this starts waiting.
  await live.locator('ol.tools-run code', { hasText: 'memory_remember' }).waitFor();
  t.match(await live.textContent(), /execute/, 'the phase in flight');
  t.match(await live.textContent(), /round \d/, 'its round');
  t.match(await w.page.textContent('main'), /working/, 'the seat reads working');
  // The streaming answer is a polite live region, busy while it streams: read once, whole, not per token.
  const response = live.locator('[data-testid="live-response"]');
  t.equal(await response.getAttribute('aria-live'), 'polite', 'the streaming response is announced politely');
  t.equal(await response.getAttribute('aria-busy'), 'true', 'and held back while it streams');
  t.equal(await live.getAttribute('aria-live'), null, 'the tool list and narration are not live');
  t.equal(await live.getByRole('status').count(), 1, 'the phase and round line is a status');
  t.equal(await w.page.locator('[aria-live="assertive"], [role="alert"]').count(), 0, 'nothing assertive');
  if (process.env['SVC_UPDATE_SCREENSHOTS'] === '1') {
    mkdirSync(join(root, 'docs', 'screenshots'), { recursive: true });
    await w.page.screenshot({ path: join(root, 'docs', 'screenshots', 'seat-turn.png') });
  }

  llm.release('answer');
  await w.page.waitForSelector('text=No turn in flight.');
  const history = w.page.locator('table:has(caption:text("Phases, newest first"))');
  await history.locator('tbody tr').nth(2).waitFor();
  const rows = await history.locator('tbody tr').allTextContents();
  t.match(
    rows.join('\n'),
    /review[\s\S]*execute[\s\S]*plan/,
    'plan, execute and review in the history, newest first',
  );
  t.match(rows.join('\n'), /memory_remember/, 'with the tool the execute phase called');
  t.same(await w.violations(), []);
  t.same(w.errors, []);
});
