/**
 * A seat's LLM history table (spec "Agent row": `llm_history`) tells a phase's `duration_ms` of 0 (time not
 * measured, as a coding run's row whose run reported none) from an absent one (not recorded): both read `—`.
 * A real node's history is not made to order, so the page's `agent` question is answered by a route on its
 * stream.
 */
import t from 'tap';
import { needsChromium, openPage, startBrowser } from '../harness/browser.js';
import { startCompanyNode } from './fixtures/company-node.js';
import { holdableStream } from './fixtures/held-stream.js';

const SEAT = 'theo-park';

const phase = (turn: string, over: Record<string, unknown>): Record<string, unknown> => ({
  turn_id: turn,
  phase: 'execute',
  iteration: 1,
  model: 'fake-model',
  response: '',
  tool_executions: [],
  total_tokens: 10,
  timestamp: new Date(Date.now() - 60_000).toISOString(),
  failed: false,
  rounds: [],
  ...over,
});

t.test(
  'a phase of 0 ms reads not measured, one without a duration reads —, a measured one its time',
  needsChromium,
  async (t) => {
    const browser = await startBrowser(t);
    const node = await startCompanyNode(t);
    const w = await openPage(browser);
    const stream = await holdableStream(w.page);
    stream.answer('agent', {
      id: SEAT,
      role: 'Theo Park',
      activity: 'idle',
      stopped_reason: null,
      live_call: null,
      last_error: null,
      paused: null,
      llm_history: [
        phase('turn-zero', { duration_ms: 0 }),
        phase('turn-absent', {}),
        phase('turn-measured', { duration_ms: 1500 }),
      ],
    });
    await w.page.goto(`${node.url}/dashboard#/seat/${SEAT}`);
    await w.page.waitForSelector('[data-link="live"]');
    const table = w.page.locator('section[aria-label="LLM history"] table');
    const rows = table.locator('tbody tr');
    await rows.nth(2).waitFor();
    const headers = (await table.locator('thead th').allTextContents()).map((h) => h.trim());
    const column = headers.indexOf('duration');
    t.ok(column >= 0, `the table has a duration column: ${headers.join(', ')}`);
    const durations = (
      await Promise.all((await rows.all()).map((r) => r.locator('td').nth(column).textContent()))
    ).map((s) => (s ?? '').trim());
    t.same(durations, ['not measured', '—', '1.5 s'], 'told apart, row by row');
    t.same(w.errors, []);
  },
);
