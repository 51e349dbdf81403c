/**
 * The spend room's tokens-per-day chart after a turn against the local fake model, in a real browser: its
 * legend names each band on one line beside a small swatch, as the bars it explains.
 */
import t from 'tap';
import { sendIssueAssigned } from '../fixtures/codehost-a-delivery.js';
import { startLlmServer } from '../fixtures/llm/llm-server.js';
import { localProviders } from '../fixtures/llm/providers.js';
import { needsChromium, openPage, startBrowser, visitRoom } from '../harness/browser.js';
import { startCompanyNode } from './fixtures/company-node.js';

const SECRET = 'codehost-a-dashboard-secret-0123';

t.test('the chart legend names each band on one line beside its swatch', needsChromium, async (t) => {
  const llm = await startLlmServer({
    wire: 'openai',
    script: [
      {
        kind: 'text',
        text: '{"decision":"plan","steps":["look"],"success_criteria":["looked"],"tools":[]}',
        usage: { prompt_tokens: 100, completion_tokens: 20 },
      },
      { kind: 'text', text: 'Looked at it.', usage: { prompt_tokens: 120, completion_tokens: 5 } },
      {
        kind: 'text',
        text: '{"verdict":"done","notes":"ok"}',
        usage: { prompt_tokens: 90, completion_tokens: 8 },
      },
    ],
  });
  t.teardown(() => llm.close());
  const company = JSON.stringify({
    name: 'Acme',
    timezone: 'UTC',
    providers: localProviders(llm.baseUrl),
    integrations: { codehost_a: { webhook_secret: SECRET } },
    roles: [{ name: 'Cy', goal: 'Triage issues' }],
  });
  const node = await startCompanyNode(t, { company });
  t.equal((await sendIssueAssigned(node.url, SECRET, ['cy'])).status, 200);
  await llm.waitForRequests(3);

  const browser = await startBrowser(t);
  const w = await openPage(browser);
  await visitRoom(w, `${node.url}/dashboard#/spend`, 'Spend');
  const legend = w.page.locator('.chart figcaption .legend');
  // The review phase's spend arrives with a tokens push after the turn: wait for its band.
  await legend.filter({ hasText: 'review' }).waitFor();
  // Per band: how many lines its name takes (a text node broken over lines has a client rect per line), and
  // its swatch's width. (Browser code as text: the tests' TypeScript has no DOM library.)
  const legends = await w.page.evaluate<Array<[string, number, number]>>(`
    [...document.querySelectorAll('.chart figcaption .legend')].map((el) => {
      const range = document.createRange();
      range.selectNodeContents(el.lastChild);
      return [el.textContent, range.getClientRects().length, el.querySelector('svg').getBoundingClientRect().width];
    })
  `);
  t.same(legends.map(([band]) => band).sort(), ['execute', 'plan', 'review'], 'a legend entry per band');
  for (const [band, lines, swatch] of legends) {
    t.equal(lines, 1, `${band}: one line`);
    t.equal(Math.round(swatch), 10, `${band}: a 10 px swatch`);
  }
  t.same(await w.violations(), []);
  t.same(w.errors, []);
});
