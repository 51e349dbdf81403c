/** A tool its server describes with nothing shows a dash in the catalogue's description, not an empty cell. */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import t from 'tap';
import { needsChromium, openPage, startBrowser } from '../harness/browser.js';
import { root } from '../harness/child.js';
import { startCompanyNode } from './fixtures/company-node.js';

const sdk = (path: string): string =>
  pathToFileURL(join(root, 'node_modules', '@modelcontextprotocol', 'sdk', 'dist', 'esm', path)).href;

/** A stdio tool server whose one tool has no description at all. */
const server = `
const { Server } = await import(${JSON.stringify(sdk('server/index.js'))});
const { StdioServerTransport } = await import(${JSON.stringify(sdk('server/stdio.js'))});
const { CallToolRequestSchema, ListToolsRequestSchema } = await import(${JSON.stringify(sdk('types.js'))});
const server = new Server({ name: 'bare', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: [{ name: 'undocumented', inputSchema: { type: 'object', properties: {} } }],
}));
server.setRequestHandler(CallToolRequestSchema, () => ({ content: [{ type: 'text', text: 'ok' }] }));
await server.connect(new StdioServerTransport());
`;

const company = {
  name: 'Bare Tools Co',
  mission: 'Call a tool nobody described',
  timezone: 'UTC',
  mcp_servers: [
    { name: 'bare', shared: true, command: process.execPath, args: ['--input-type=module', '-e', server] },
  ],
  roles: [{ name: 'Ada Lane', handle: 'ada', goal: 'Answer what comes in.' }],
};

t.test('a tool without a description shows a dash in the catalogue', needsChromium, async (t) => {
  const browser = await startBrowser(t);
  const node = await startCompanyNode(t, { company: JSON.stringify(company) });
  const w = await openPage(browser);
  await w.page.goto(`${node.url}/dashboard#/tools`);
  await w.page.waitForSelector('[data-link="live"]');
  const row = w.page.locator('section[aria-label^="Catalogue"] tbody tr', { hasText: 'undocumented' });
  await row.waitFor({ timeout: 60_000 });
  const headers = await w.page.locator('section[aria-label^="Catalogue"] thead th').allTextContents();
  const cells = await row.locator('td').allTextContents();
  t.equal(cells[headers.indexOf('description')], '—', 'a dash where the description would be');
  t.same(await w.violations(), []);
  t.same(w.errors, []);
});
