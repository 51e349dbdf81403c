/**
 * The fleet room shows each node's posture and alarms as its `/fleet` row carries them (ops/fleet.md "The
 * fleet routes"): a node stuck, shed or isolated reads so in words, its alarms by name with the worst severity
 * first; a serving node without alarms reads a quiet "serving" and nothing more. Nodes stuck or shed take a
 * restarted fleet each, so the page's `fleet` question is answered by a route on its stream with rows of
 * the shape the real node answers, and a `fleet` push tells the room of a change, as the node's does.
 */
import t from 'tap';
import type { FleetAnswer } from '../../schema/index.js';
import { needsChromium, openPage, startBrowser } from '../harness/browser.js';
import { startCompanyNode, TOKEN } from './fixtures/company-node.js';
import { holdableStream } from './fixtures/held-stream.js';

type Row = FleetAnswer['nodes'][number];

t.test(
  "each node's posture and alarms read in words on its row; a serving node without alarms reads serving",
  needsChromium,
  async (t) => {
    const browser = await startBrowser(t);
    const node = await startCompanyNode(t);
    const real = (await (
      await fetch(`${node.url}/fleet`, { headers: { authorization: `Bearer ${TOKEN}` } })
    ).json()) as FleetAnswer;
    const own = real.nodes.find((n) => n.id === real.node)!;
    const peer = (id: string, over: Partial<Row>): Row => ({ ...own, id, seats: [], duties: [], ...over });
    const sixteen = Array.from(
      { length: 16 },
      (_, i) => `budget_exhausted:seat:s${String(i).padStart(2, '0')}`,
    );
    const fleet = (stuck: Partial<Row>): FleetAnswer => ({
      ...real,
      nodes: [
        { ...own, posture: 'serve', alarms: { count: 0, names: [] } },
        peer('node-fresh', { posture: 'serve', alarms: null }),
        peer('node-isolated', {
          posture: 'isolated',
          alarms: { count: 1, worst: 'warning', names: ['apply_isolated'] },
        }),
        peer('node-old', { posture: null, alarms: null }),
        peer('node-shed', {
          posture: 'shed',
          alarms: { count: 18, worst: 'critical', names: ['node_shed', ...sixteen.slice(1)] },
        }),
        peer('node-stuck', stuck),
      ],
    });

    const w = await openPage(browser);
    const stream = await holdableStream(w.page);
    stream.answer(
      'fleet',
      fleet({
        posture: 'stuck',
        alarms: { count: 2, worst: 'critical', names: ['apply_stuck', 'config_lagging'] },
      }),
    );
    await w.page.addInitScript(`sessionStorage.setItem('svc.token', '${TOKEN}')`);
    await w.page.goto(`${node.url}/dashboard#/fleet`);
    await w.page.waitForSelector('[data-link="live"]');
    const table = w.page.locator('section[aria-label="Nodes"] table').first();
    await table.locator('tbody tr').nth(5).waitFor();
    const heads = (await table.locator('thead th').allTextContents()).map((h) => h.trim());
    const cells = async (id: string): Promise<{ posture: string; alarms: string }> => {
      const row = table
        .locator('tbody tr')
        .filter({ has: w.page.locator('td:first-child', { hasText: new RegExp(`^${id}$`) }) });
      const texts = await row.locator('td').allTextContents();
      const all = Object.fromEntries(
        texts.map((text, i): [string, string] => [heads[i] ?? `${i}`, text.replace(/\s+/g, ' ').trim()]),
      );
      return { posture: all['posture'] ?? '', alarms: all['alarms'] ?? '' };
    };

    t.same(
      await cells('node-stuck'),
      { posture: 'stuck', alarms: 'critical 2 alarms: apply_stuck, config_lagging' },
      'a stuck node, its worst severity said first as a word, then its alarms by name',
    );
    t.equal((await cells('node-shed')).posture, 'shed');
    t.equal(
      (await cells('node-shed')).alarms,
      `critical 18 alarms: node_shed, ${sixteen.slice(1).join(', ')}, and 2 more`,
      'every name the node announced, in its order (critical first), and how many it left out',
    );
    t.same(
      await cells('node-isolated'),
      { posture: 'isolated', alarms: 'warning 1 alarm: apply_isolated' },
      'an isolated node and its warning',
    );
    t.same(
      await cells(real.node),
      { posture: 'serving', alarms: '' },
      'a serving node with no alarm is quiet',
    );
    t.same(await cells('node-fresh'), { posture: 'serving', alarms: '' }, 'as is one not evaluated yet');
    t.same(await cells('node-old'), { posture: '—', alarms: '' }, 'an earlier release announces neither');
    const stuckBadge = table
      .locator('tbody tr', { hasText: 'node-stuck' })
      .locator('.badge', { hasText: 'stuck' });
    t.equal(await stuckBadge.getAttribute('title'), 'out of rotation: it cannot apply its configuration');

    // The node recovers: its `fleet` push makes the room read the fleet again.
    stream.answer('fleet', fleet({ posture: 'serve', alarms: { count: 0, names: [] } }));
    stream.send('fleet', null);
    await table.locator('tbody tr', { hasText: 'node-stuck' }).getByText('serving').waitFor();
    t.same(await cells('node-stuck'), { posture: 'serving', alarms: '' }, 'the recovered node reads serving');
    t.same(await w.violations(), []);
    t.same(w.errors, []);
  },
);
