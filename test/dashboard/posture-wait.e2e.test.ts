/**
 * A node applying a revision (posture `wait`, spec "Node configuration state") says so in words in the
 * polite status region: that it serves the revision it ran before, and that `/ready` still answers 200; the
 * words go once the apply ends. Provoked on a real `svc serve` child: the new revision adds a remote tool
 * server whose MCP handshake the test holds, and an apply waits for its tool servers to start (or fail).
 */
import t from 'tap';
import { call, health } from '../harness/api.js';
import { needsChromium, openPage, startBrowser } from '../harness/browser.js';
import { heldToolServer } from '../harness/held-tool-server.js';
import { startNode, TOKEN } from '../harness/serve-node.js';
import { until } from '../harness/until.js';

const providers = {
  llm: { main: { type: 'openai-compatible', model: 'm', base_url: 'http://127.0.0.1:9' } },
};

const putConfig = async (url: string, body: unknown): Promise<number> =>
  (await call(url, 'PUT', '/config', body)).status;

t.test(
  'a node applying a revision says it serves the one before and stays ready; the words go when the apply ends',
  needsChromium,
  async (t) => {
    const browser = await startBrowser(t);
    const node = await startNode(t);
    t.equal(await putConfig(node.url, { name: 'Acme', providers, roles: [{ name: 'Ada' }] }), 201);
    await until(
      () => health(node.url),
      (h) => h['applied_epoch'] === 1 && h['posture'] === 'serve',
    );
    const w = await openPage(browser);
    await w.page.goto(`${node.url}/dashboard#/overview`);
    await w.page.getByLabel('Operator token').fill(TOKEN);
    await w.page.getByRole('button', { name: 'Use token' }).click();
    await w.page.waitForSelector('[data-link="live"]');
    const notice = w.page.locator('[data-notice="posture"]');
    t.equal(await notice.count(), 0, 'serving: no notice');

    const tools = await heldToolServer(t, 500);
    const next = {
      name: 'Acme',
      providers,
      roles: [{ name: 'Ada' }],
      mcp_servers: [{ name: 'slow', shared: true, url: tools.url }],
    };
    t.equal(await putConfig(node.url, next), 201);
    await tools.asked;
    t.match(await health(node.url), { posture: 'wait', applied_epoch: 1 }, 'the apply of epoch 2 is held');

    await notice.waitFor({ timeout: 15_000 });
    const said = (await notice.textContent()) ?? '';
    t.match(said, /applying a new configuration revision/, `wait: ${said}`);
    t.match(said, /\(wait\)/, 'names the posture');
    t.match(said, /epoch 1\b/, 'what it serves meanwhile: the revision it last applied');
    t.match(said, /\/ready still answers 200/, 'and that it stays in rotation');
    t.equal((await fetch(`${node.url}/ready`)).status, 200, 'as /ready says');
    t.equal(await notice.locator('xpath=..').getAttribute('role'), 'status', 'announced politely');
    t.equal(await notice.getAttribute('class'), 'notice', 'a notice, not an error');

    tools.release();
    await notice.waitFor({ state: 'detached', timeout: 15_000 });
    t.match(await health(node.url), { posture: 'serve', applied_epoch: 2 }, 'the apply ended');
    t.same(await w.violations(), []);
    t.same(w.errors, []);
  },
);
