/**
 * The vendor readers of the skills sync against small local servers speaking the vendors' REST shapes:
 * the wiki's `/rest/api/content` paged by `start` with a Bearer token, tracker-b's projects and cursor-paged
 * work items with `X-API-Key`. Archived items are no skills; a refusal is a VendorError in our words that
 * never quotes the token; the cloud wiki is read through the vendor's API gateway with its site's links.
 */
import t, { type Test } from 'tap';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { readTrackerBSkillPages, readWikiSkillPages } from '../../../actors/index.js';

const TOKEN = 'tok-7f3a9c-secret';

async function serve(t: Test, handle: (req: IncomingMessage, url: URL) => unknown) {
  const asked: string[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    asked.push(`${url.pathname}${url.search}`);
    const answer = handle(req, url);
    if (typeof answer === 'number') {
      res.writeHead(answer, { 'content-type': 'application/json' }).end('{"message":"no"}');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, asked };
}

t.test('wiki: every page of the space, paged by start, with body, link and version time', async (t) => {
  const pages = Array.from({ length: 60 }, (_, i) => ({
    id: String(1000 + i),
    type: 'page',
    title: `Skill ${i}`,
    body: { storage: { value: `<p>Body ${i}</p>`, representation: 'storage' } },
    version: { number: 3, when: `2026-11-${String(1 + (i % 28)).padStart(2, '0')}T10:00:00.000Z` },
    _links: { webui: `/spaces/TS/pages/${1000 + i}` },
  }));
  const site = await serve(t, (req, url) => {
    if (req.headers.authorization !== `Bearer ${TOKEN}`) return 401;
    if (url.pathname !== '/rest/api/content' || url.searchParams.get('spaceKey') !== 'TS') return 404;
    const start = Number(url.searchParams.get('start'));
    const limit = Number(url.searchParams.get('limit'));
    const results = pages.slice(start, start + limit);
    return { results, start, limit, size: results.length, _links: {} };
  });
  const read = await readWikiSkillPages({ url: `${site.url}/`, token: TOKEN }, 'TS', 5_000);
  t.equal(read.length, 60);
  t.same(read[0], {
    id: '1000',
    title: 'Skill 0',
    html: '<p>Body 0</p>',
    url: `${site.url}/spaces/TS/pages/1000`,
    updated_at: '2026-11-01T10:00:00.000Z',
  });
  t.equal(site.asked.length, 2, 'two pages of 50');
  t.match(site.asked[0], /expand=body.storage%2Cversion/);
});

t.test(
  'wiki: a refused token is a VendorError that does not quote it; a missing token is named',
  async (t) => {
    const site = await serve(t, () => 401);
    const refused = await readWikiSkillPages({ url: site.url, token: TOKEN }, 'TS', 5_000).catch(
      (e: unknown) => e,
    );
    t.match(refused, { name: 'VendorError', message: /credential was refused/ });
    t.notMatch(String((refused as Error).message), TOKEN);
    await t.rejects(readWikiSkillPages({ url: site.url }, 'TS', 5_000), { message: /token is not set/ });
  },
);

t.test(
  'wiki cloud: the space is read through the API gateway with Basic email:token, linked to the site',
  async (t) => {
    const gateway = await serve(t, (req, url) => {
      if (
        req.headers.authorization !== `Basic ${Buffer.from(`bot@example.test:${TOKEN}`).toString('base64')}`
      )
        return 401;
      if (url.pathname !== '/ex/confluence/site-7/wiki/rest/api/content') return 404;
      return {
        results: [
          {
            id: '42',
            title: 'Deploy',
            body: { storage: { value: '<p>Steps</p>' } },
            version: { when: '2026-11-30T08:00:00.000Z' },
            _links: { webui: '/spaces/TS/pages/42' },
          },
        ],
        size: 1,
        _links: { base: 'https://acme.example.test/wiki' },
      };
    });
    const read = await readWikiSkillPages(
      { cloud_id: 'site-7', email: 'bot@example.test', token: TOKEN },
      'TS',
      5_000,
      gateway.url,
    );
    t.same(read, [
      {
        id: '42',
        title: 'Deploy',
        html: '<p>Steps</p>',
        url: 'https://acme.example.test/wiki/spaces/TS/pages/42',
        updated_at: '2026-11-30T08:00:00.000Z',
      },
    ]);
    t.match(gateway.asked[0], /spaceKey=TS/);
  },
);

t.test(
  'tracker-b: the open items of the project named by its identifier, over every cursor page',
  async (t) => {
    const item = (id: string, extra: Record<string, unknown> = {}) => ({
      id,
      name: `Item ${id}`,
      description_html: `<p>How ${id}</p>`,
      updated_at: '2026-11-20T08:00:00Z',
      archived_at: null,
      ...extra,
    });
    const site = await serve(t, (req, url) => {
      if (req.headers['x-api-key'] !== TOKEN) return 401;
      if (url.pathname === '/api/v1/workspaces/acme/projects/')
        return {
          results: [
            { id: 'p-eng', identifier: 'ENG' },
            { id: 'p-ts', identifier: 'TS' },
          ],
        };
      if (url.pathname === '/api/v1/workspaces/acme/projects/p-ts/issues/')
      return url.searchParams.get('cursor') === 'c2'
        ? { results: [item('i3', { description_html: null, description_stripped: 'plain <text>' })], next_cursor: 'c3', next_page_results: false } // prettier-ignore
        : { results: [item('i1'), item('i2', { archived_at: '2026-11-21T00:00:00Z' })], next_cursor: 'c2', next_page_results: true }; // prettier-ignore
      return 404;
    });
    const read = await readTrackerBSkillPages(
      { url: site.url, workspace: 'acme', token: TOKEN },
      'ts',
      5_000,
    );
    t.equal(read.projectId, 'p-ts');
    t.same(
      read.pages.map((p) => [p.id, p.html]),
      [
        ['i1', '<p>How i1</p>'],
        ['i3', 'plain &lt;text&gt;'],
      ],
    );
    t.equal(read.pages[0]?.url, `${site.url}/acme/projects/p-ts/issues/i1`);
    await t.rejects(
      readTrackerBSkillPages({ url: site.url, workspace: 'acme', token: TOKEN }, 'OPS', 5_000),
      { message: 'tracker-b: no project OPS in workspace acme' },
    );
  },
);
