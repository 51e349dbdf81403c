/**
 * Tool skills on one node, wired as `svc serve` wires them: the native knowledge base's container named
 * by SVC_TOOL_SKILLS_SPACE and the wiki's space of that name (a local server speaking its REST API) are
 * synced on a new active revision and read by the shelf; a webhook about a page of the space brings a new
 * read, one about another space does not; a change of the knowledge base is synced within moments; an
 * empty SVC_TOOL_SKILLS_SPACE switches the space off.
 */
import t, { type Test } from 'tap';
import { pino } from 'pino';
import { createServer } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { Buckets, openMemoryBus, Subjects } from '../../bus/index.js';
import type { PagesService } from '../../projections/index.js';
import { startSkills } from '../../scripts/skills-wiring.js';

const logger = pino({ level: 'silent' });
const TOKEN = 'wiki-token-1';

async function wikiServer(t: Test) {
  let title = 'Query logs';
  const reads: Array<() => void> = [];
  let count = 0;
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.headers.authorization !== `Bearer ${TOKEN}` || url.searchParams.get('spaceKey') !== 'OPS') {
      res.writeHead(404).end();
      return;
    }
    count += 1;
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({ results: [{ id: '7', title, body: { storage: { value: '<p>Use <code>grep</code>.</p>' } }, version: { when: '2026-11-30T00:00:00Z' } }] }), // prettier-ignore
    );
    reads.splice(0).forEach((r) => r());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    reads: () => count,
    nextRead: () => new Promise<void>((resolve) => reads.push(resolve)),
    rename: (next: string) => void (title = next),
  };
}

type NativePage = { id: string; container: string; title: string; body: string };
const nativePages = (pages: NativePage[]) =>
  ({
    state: () => ({
      pages: new Map(pages.map((p) => [p.id, { ...p, updated_at: '2026-11-29T00:00:00Z' }])),
    }),
  }) as unknown as PagesService;

t.test('a change of the native knowledge base is synced within moments', async (t) => {
  const bus = await openMemoryBus();
  t.teardown(() => bus.close());
  const pages: NativePage[] = [];
  let changed = (): void => undefined;
  const skills = await startSkills({
    bus,
    logger,
    chart: () => ({ document: { name: 'Acme' }, epoch: 1 }),
    pages: () => nativePages(pages),
    onPagesChange: (listener) => {
      changed = listener;
      return () => (changed = () => undefined);
    },
    resolve: () => undefined,
    epoch: () => 1,
    env: {},
  });
  t.teardown(() => skills.stop());
  await skills.sync.syncNow();
  t.same(await skills.shelf.list(null), []);
  const kv = await bus.kv({ name: Buckets.ToolSkills, history: 2 });
  let wrote = (): void => undefined;
  const written = new Promise<void>((resolve) => (wrote = resolve));
  const watch = await kv.watch((entry) => entry.key === 'native' && wrote(), { initial: false });
  t.teardown(() => watch.stop());
  pages.push({ id: 'p1', container: 'TS', title: 'Deploy', body: 'Run the deploy.' });
  changed();
  await written;
  t.same(
    (await skills.shelf.list(null)).map((s) => s.name),
    ['Deploy'],
  );
});

t.test(
  'the native container and the wiki space are synced on a revision and nudged by webhooks',
  async (t) => {
    const bus = await openMemoryBus();
    t.teardown(() => bus.close());
    const wiki = await wikiServer(t);
    let epoch = 0;
    const skills = await startSkills({
    bus,
    logger,
    chart: () => ({
      document: { name: 'Acme', integrations: { wiki: { url: wiki.url, token: '${WIKI_TOKEN}' } }, skill_variables: {} },
      epoch,
    }),
    pages: () => nativePages([
      { id: 'p1', container: 'ops', title: 'Deploy', body: 'Run the deploy.' },
      { id: 'p2', container: 'ENG', title: 'Not a skill', body: 'Another container.' },
    ]),
    resolve: (name) => (name === 'WIKI_TOKEN' ? TOKEN : undefined),
    epoch: () => epoch,
    env: { SVC_TOOL_SKILLS_SPACE: 'OPS' },
    nudgeDelayMs: 10,
  }); // prettier-ignore
    t.teardown(() => skills.stop());
    t.same(await skills.shelf.list(null), [], 'nothing before a revision is active');
    t.same(skills.shelf.places(), ['knowledge base container OPS', 'wiki space OPS']);

    const first = wiki.nextRead();
    epoch = 1;
    await first;
    await skills.sync.syncNow(); // queued behind the revision's sync: resolves once that one wrote
    const names = (await skills.shelf.list(null)).map((s) => `${s.source}:${s.name}:${s.content}`);
    t.same(names, ['native:Deploy:Run the deploy.', 'wiki:Query logs:Use grep.']);

    const before = wiki.reads();
    const emit = (space: string) =>
    bus.emit(Subjects.notificationsInbound, new TextEncoder().encode(JSON.stringify({ pipeline: 'wiki', subject: { space } }))); // prettier-ignore
    emit('ENG');
    wiki.rename('Search logs');
    const nudged = wiki.nextRead();
    emit('ops');
    await nudged;
    await skills.sync.syncNow();
    t.equal(wiki.reads(), before + 2, 'the nudge read once, the forced sync once; the other space none');
    t.ok((await skills.shelf.list(null)).some((s) => s.name === 'Search logs'));

    // The integration host names the pipeline in a header, and the header decides before the body is read.
    const reads = wiki.reads();
    bus.emit(Subjects.notificationsInbound, new TextEncoder().encode(JSON.stringify({ pipeline: 'wiki', subject: { space: 'ops' } })), { 'svc-pipeline': 'chat' }); // prettier-ignore
    await new Promise((resolve) => setTimeout(resolve, 200));
    t.equal(wiki.reads(), reads, 'a notification whose header names another pipeline brings no read');
    const headed = wiki.nextRead();
    bus.emit(Subjects.notificationsInbound, new TextEncoder().encode(JSON.stringify({ pipeline: 'wiki', subject: { space: 'ops' } })), { 'svc-pipeline': 'wiki' }); // prettier-ignore
    await headed;
    t.pass('one whose header names the wiki brings a read');
  },
);

t.test('an empty SVC_TOOL_SKILLS_SPACE switches the space off', async (t) => {
  const bus = await openMemoryBus();
  t.teardown(() => bus.close());
  const skills = await startSkills({
    bus,
    logger,
    chart: () => ({ document: { name: 'Acme', integrations: { wiki: { url: 'http://127.0.0.1:9', token: 'x' } } }, epoch: 1 }), // prettier-ignore
    pages: () => nativePages([{ id: 'p1', container: 'TS', title: 'Deploy', body: 'x' }]),
    resolve: () => undefined,
    epoch: () => 1,
    env: { SVC_TOOL_SKILLS_SPACE: '' },
  });
  t.teardown(() => skills.stop());
  await skills.sync.syncNow();
  t.same(skills.shelf.places(), []);
  t.same(await skills.shelf.list(null), []);
});

t.test('a cloud wiki’s space is read through the gateway SVC_CLOUD_SITE_API_URL names', async (t) => {
  const bus = await openMemoryBus();
  t.teardown(() => bus.close());
  const asked: string[] = [];
  const gateway = createServer((req, res) => {
    asked.push(new URL(req.url ?? '/', 'http://x').pathname);
    const basic = `Basic ${Buffer.from(`bot@example.test:${TOKEN}`).toString('base64')}`;
    if (req.headers.authorization !== basic) return void res.writeHead(401).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({ results: [{ id: '9', title: 'Rotate keys', body: { storage: { value: '<p>Rotate.</p>' } } }] }), // prettier-ignore
    );
  });
  gateway.listen(0, '127.0.0.1');
  await once(gateway, 'listening');
  t.teardown(() => new Promise<void>((resolve) => gateway.close(() => resolve())));
  const skills = await startSkills({
    bus,
    logger,
    chart: () => ({ document: { name: 'Acme', integrations: { wiki: { cloud_id: 'site-7', email: 'bot@example.test', token: '${WIKI_TOKEN}' } } }, epoch: 1 }), // prettier-ignore
    pages: () => null,
    resolve: (name) => (name === 'WIKI_TOKEN' ? TOKEN : undefined),
    epoch: () => 1,
    env: {
      SVC_TOOL_SKILLS_SPACE: 'OPS',
      SVC_CLOUD_SITE_API_URL: `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`,
    },
  });
  t.teardown(() => skills.stop());
  await skills.sync.syncNow();
  t.same(
    (await skills.shelf.list(null)).map((s) => `${s.source}:${s.name}`),
    ['wiki:Rotate keys'],
  );
  t.same(asked, ['/ex/confluence/site-7/wiki/rest/api/content']);
});
