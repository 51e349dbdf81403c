/**
 * A stored revision with an empty summary (one a writer other than the HTTP routes stored) shows a dash in
 * the config room's revisions, not an empty cell. The record is put on the node's store (SVC_CONFIG) while
 * it is stopped, and the node replays it at start.
 */
import { randomUUID } from 'node:crypto';
import { dirname, join } from 'node:path';
import t from 'tap';
import { ensureCatalogue, openMemoryBus, Subjects } from '../../bus/index.js';
import { needsChromium, openPage, startBrowser } from '../harness/browser.js';
import { startCompanyNode, TOKEN } from './fixtures/company-node.js';

t.test('a revision without a summary shows a dash in the revisions list', needsChromium, async (t) => {
  const browser = await startBrowser(t);
  const node = await startCompanyNode(t);
  node.run.kill('SIGTERM');
  await node.run.exited;
  const bus = await openMemoryBus({ storeDir: join(dirname(node.configFile), 'data') });
  await ensureCatalogue(bus);
  const revision = randomUUID();
  const record = {
    revision_id: revision,
    parent_revision_id: null,
    created_at: new Date().toISOString(),
    created_by: 'ops',
    created_by_kind: 'operator',
    source: 'cli',
    summary: '',
    payload: { name: 'Unsummarised Co' },
  };
  await bus.publish(Subjects.configRevisionStored, new TextEncoder().encode(JSON.stringify(record)));
  await bus.close();
  await node.restart();

  const w = await openPage(browser);
  await w.page.addInitScript(`sessionStorage.setItem('svc.token', '${TOKEN}')`);
  await w.page.goto(`${node.url}/dashboard#/config`);
  await w.page.waitForSelector('[data-link="live"]');
  const row = w.page.locator('section[aria-label="Revisions"] tbody tr', {
    has: w.page.locator(`code[title="${revision}"]`),
  });
  await row.waitFor({ timeout: 60_000 });
  t.equal(await row.locator('.revision-summary').textContent(), '—', 'a dash, not an empty cell');
  t.same(await w.violations(), []);
  t.same(w.errors, []);
});
