/**
 * A duplicate node id shows in the fleet room (ops/fleet.md "A restarted node, a duplicate node id"): `/fleet`
 * keeps one row for the id with the other processes under its `duplicates`, and the room says so on that row,
 * naming each other process (pid, host, API address, start), instead of showing one healthy-looking node.
 * Real processes on one nats-server: node-a is paused (SIGSTOP) while a copy of its Tier A file starts on
 * another port (a paused holder is not waited for), then resumed, so both run with one id.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import t from 'tap';
import type { FleetAnswer } from '../../schema/index.js';
import { needsChromium, openPage, startBrowser } from '../harness/browser.js';
import { freePort, runSvc } from '../harness/child.js';
import { startFleetNode, storeFleetCompany, until } from '../harness/fleet-node.js';
import { startNatsServer } from '../harness/nats-server.js';
import { TOKEN } from '../harness/serve-node.js';

const auth = { authorization: `Bearer ${TOKEN}` };

t.test(
  'two processes writing one node id: the fleet room marks the row and names the other process',
  needsChromium,
  async (t) => {
    const browser = await startBrowser(t);
    const nats = await startNatsServer({ t });
    const a = await startFleetNode(t, 'node-a', nats.url, { leaseSeconds: 3 });
    await storeFleetCompany(t, a);

    // The copy starts while node-a is paused: its holder asks go unanswered, so it is not refused.
    const copied = `${a.configFile}.copy.yaml`;
    const port = await freePort();
    writeFileSync(
      copied,
      readFileSync(a.configFile, 'utf8').replace(`port: ${new URL(a.url).port}`, `port: ${port}`),
    );
    a.run.kill('SIGSTOP');
    const dup = runSvc(['serve', '--config', copied], { SVC_TOKEN: TOKEN });
    t.teardown(() => dup.kill('SIGKILL'));
    try {
      await dup.waitForLog((l) => l.msg === 'node serving');
    } finally {
      a.run.kill('SIGCONT');
    }
    const fleet = await until(
      async () => (await (await fetch(`${a.url}/fleet`, { headers: auth })).json()) as FleetAnswer,
      (f) => (f.nodes[0]?.duplicates?.length ?? 0) === 1,
    );
    const other = fleet.nodes[0]!.duplicates![0]!;

    const w = await openPage(browser);
    await w.page.addInitScript(`sessionStorage.setItem('svc.token', '${TOKEN}')`);
    await w.page.goto(`${a.url}/dashboard#/fleet`);
    await w.page.waitForSelector('[data-link="live"]');
    const nodes = w.page.locator('section[aria-label="Nodes"]');
    const warning = nodes.getByText('Duplicate node id', { exact: false });
    await warning.first().waitFor();
    const said = (await nodes.textContent()) ?? '';
    t.match(said, /node-a.*written by 2 processes/s, 'the row says two processes write its id');
    t.match(said, `pid ${other.pid}`, "the other process's pid is named");
    t.match(said, `on host ${hostname()}`, 'and its host');
    t.match(said, `API 127.0.0.1:${port}`, 'and its API address');
    t.match(said, 'stop one of them', 'and what to do');

    dup.kill('SIGTERM');
    await dup.exited;
    await nodes
      .getByText('Duplicate node id', { exact: false })
      .first()
      .waitFor({ state: 'detached', timeout: 30_000 });
    t.pass('the mark leaves once the other process stopped');
    t.same(await w.violations(), []);
    t.same(w.errors, []);
  },
);
