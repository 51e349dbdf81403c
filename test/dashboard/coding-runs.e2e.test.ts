/**
 * Coding runs are shown where an operator looks: the overview lists every run not yet ended (seat, coding
 * agent, task, status, since when, an open question and its audience, the work item, the spans and exports
 * its telemetry receiver accepted) and the seat's room
 * its own; a run that moves on (asks, ends) moves on the page; with none, the overview says so in words.
 * The runs are real run records on the node's store (SVC_SANDBOX), which the node replays at start.
 */
import { dirname, join } from 'node:path';
import t from 'tap';
import { ensureCatalogue, openMemoryBus, Subjects } from '../../bus/index.js';
import { needsChromium, openPage, startBrowser } from '../harness/browser.js';
import { startCompanyNode, type CompanyNode } from './fixtures/company-node.js';

const browser = needsChromium.skip === false ? await startBrowser(t) : null;

/** A run launched by another node (so this one's supervisor leaves it alone) for Theo Park. */
const record = (status: string, extra: Record<string, unknown> = {}) => ({
  turn_id: 'turn-7',
  role: 'Theo Park',
  agent_handle: 'theo-park',
  agent_id: 'agent-theo',
  coding_agent: 'claude-code',
  sandbox_id: 'sb-endpoint',
  task: 'Add the health endpoint',
  status,
  started_at: new Date(Date.now() - 2 * 3600_000).toISOString(),
  question: null,
  audience: null,
  work_item: 'ENG-7',
  owner: 'theo-park',
  paused_at: null,
  node: 'node-elsewhere',
  trace_id: 'a'.repeat(32),
  span_id: 'b'.repeat(16),
  token_sha256: 'c'.repeat(64),
  workdir: null,
  pid: null,
  answer: null,
  telemetry: { traces: 2, metrics: 1, logs: 3, spans: 7 },
  updated_at: new Date().toISOString(),
  ...extra,
});

/** Stops the node, stores `run` as the newest record of its run, and starts the node again. */
async function storeRun(node: CompanyNode, run: ReturnType<typeof record>): Promise<void> {
  node.run.kill('SIGTERM');
  await node.run.exited;
  const bus = await openMemoryBus({ storeDir: join(dirname(node.configFile), 'data') });
  await ensureCatalogue(bus);
  await bus.publish(Subjects.sandboxRun(run.sandbox_id), new TextEncoder().encode(JSON.stringify(run)));
  await bus.close();
  await node.restart();
}

/** What a browser logs, unasked, while its server is away: the refused socket and polls. */
const whileAway = /WebSocket connection to .* failed|Failed to load resource|ERR_CONNECTION_REFUSED/;

t.test('the overview and the seat room show the live coding runs as they move', needsChromium, async (t) => {
  const node = await startCompanyNode(t);
  const w = await openPage(browser!);
  await w.page.goto(`${node.url}/dashboard#/overview`);
  await w.page.waitForSelector('[data-link="live"]');
  const card = w.page.locator('section[aria-label="Coding runs"]');
  await card
    .getByText('No coding run is going on: runs a seat hands to its coding agent show here until they end.')
    .waitFor();
  t.pass('no run: the overview says so in words');

  await storeRun(node, record('running'));
  await card.locator('table').waitFor({ timeout: 60_000 });
  const row = card.locator('tbody tr');
  t.equal(await row.count(), 1);
  t.same(
    await row.locator('td').allTextContents(),
    [
      'Theo Park',
      'claude-code',
      'Add the health endpoint',
      'running',
      '2h ago',
      '—',
      'ENG-7',
      '7 spans · exports: 2 trace, 1 metric, 3 log',
      'Cancel run',
    ],
    'seat, coding agent, task, status, since when, no question, the work item, what its telemetry receiver accepted, the cancel',
  );
  const listed = (await (await fetch(`${node.url}/sandbox-runs`)).json()) as {
    runs: Array<{ sandbox_id: string; telemetry: unknown }>;
  };
  t.same(
    listed.runs.map((r) => [r.sandbox_id, r.telemetry]),
    [['sb-endpoint', { traces: 2, metrics: 1, logs: 3, spans: 7 }]],
    '/sandbox-runs shows what the run telemetry receiver accepted, from its record',
  );
  t.equal(await row.getByRole('link', { name: 'Theo Park' }).getAttribute('href'), '#/seat/theo-park');
  t.equal(await row.getByRole('link', { name: 'ENG-7' }).getAttribute('href'), '#/work/ENG-7');

  await storeRun(
    node,
    record('awaiting_clarification', {
      question: 'Which port should it listen on?',
      audience: 'cto',
      paused_at: new Date().toISOString(),
    }),
  );
  await card.getByText('Which port should it listen on?').waitFor({ timeout: 60_000 });
  t.match(await row.textContent(), /awaiting_clarification.*Which port should it listen on\? · asks cto/);
  t.pass('the open question and whom it asks show once the run asks');

  await w.page.evaluate(`location.hash = '#/seat/theo-park'`);
  const seatCard = w.page.locator('section[aria-label="Coding runs"]');
  await seatCard.getByText('Add the health endpoint').waitFor();
  t.notOk(
    await seatCard.locator('th', { hasText: 'seat' }).count(),
    'the seat room does not repeat the seat',
  );
  await w.page.evaluate(`location.hash = '#/seat/nia-okafor'`);
  await w.page.getByText('No coding run is going on for this seat.').waitFor();
  t.pass("another seat's room lists none of them");

  await w.page.evaluate(`location.hash = '#/overview'`);
  await storeRun(node, record('done', { ended_at: new Date().toISOString() }));
  await card.getByText('No coding run is going on', { exact: false }).waitFor({ timeout: 60_000 });
  t.pass('an ended run leaves the list');
  t.same(await w.violations(), []);
  t.same(
    w.errors.filter((e) => !whileAway.test(e)),
    [],
  );
});
