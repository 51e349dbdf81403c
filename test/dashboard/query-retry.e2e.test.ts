/**
 * A question whose answer never comes (the node dropped it) is asked again after its timeout, with backoff,
 * and the room keeps its last answer on screen, marked stale, instead of emptying. The answer is dropped by a
 * route on the page's socket; the page's clock is Playwright's, so the 15 s timeout passes without waiting.
 */
import t from 'tap';
import { needsChromium, openPage, pauseAhead, startBrowser, type WatchedPage } from '../harness/browser.js';
import { until } from '../harness/until.js';
import { startCompanyNode } from './fixtures/company-node.js';

const browser = needsChromium.skip === false ? await startBrowser(t) : null;

interface Dropper {
  /** The next `events` question's answer is dropped. */
  dropNext(): void;
  /** Ids of the questions whose answers were dropped. */
  readonly dropped: Set<number>;
  /** The row counts of the `events` answers handed to the page, in order. */
  readonly answered: number[];
  /** Hands the page a frame as if from the node. */
  send(frame: unknown): void;
}

async function dropAnswers(w: WatchedPage): Promise<Dropper> {
  let dropping = false;
  const dropped = new Set<number>();
  const asked = new Set<number>();
  const answered: number[] = [];
  const sockets: Array<{ send(message: string): void }> = [];
  await w.page.routeWebSocket(/\/ws\/stream$/, (ws) => {
    const server = ws.connectToServer();
    sockets.push(ws);
    ws.onMessage((message) => {
      const sent =
        typeof message === 'string'
          ? (JSON.parse(message) as { kind?: string; what?: string; id?: number })
          : {};
      if (sent.kind === 'query' && sent.what === 'events' && typeof sent.id === 'number') asked.add(sent.id);
      if (dropping && sent.kind === 'query' && sent.what === 'events' && typeof sent.id === 'number') {
        dropping = false;
        dropped.add(sent.id);
      }
      server.send(message);
    });
    server.onMessage((message) => {
      if (typeof message === 'string' && /^\{"kind":"(result|error)"/.test(message)) {
        const answer = JSON.parse(message) as { data?: { id?: number; data?: { rows?: unknown[] } } };
        if (typeof answer.data?.id === 'number' && dropped.has(answer.data.id)) return;
        if (typeof answer.data?.id === 'number' && asked.has(answer.data.id))
          answered.push(answer.data.data?.rows?.length ?? 0);
      }
      ws.send(message);
    });
  });
  return {
    dropNext: () => {
      dropping = true;
    },
    dropped,
    answered,
    send: (frame) => sockets.at(-1)?.send(JSON.stringify(frame)),
  };
}

t.test(
  'an unanswered question keeps the last answer on screen, marked stale, and is asked again',
  needsChromium,
  async (t) => {
    const node = await startCompanyNode(t);
    const w = await openPage(browser!);
    const route = await dropAnswers(w);
    await w.page.clock.install();
    await w.page.goto(`${node.url}/dashboard#/feed`);
    await w.page.waitForSelector('[data-link="live"]');
    const rows = w.page.locator('ol.feed li');
    // The page has drawn an answer of the feed's question, not only the first rows that came.
    const first = await until(
      () => Promise.resolve(route.answered[0]),
      (n) => n !== undefined && n > 0,
    );
    await until(
      () => rows.count(),
      (n) => n === first,
    );
    const shown = await rows.count();

    // A new event moves the feed to ask again; that answer is lost.
    route.dropNext();
    const at = new Date().toISOString();
    route.send({
      kind: 'event',
      data: {
        id: 'injected-1',
        timestamp: at,
        category: 'task',
        type: 'TaskCreated',
        summary: 'moved',
        actor: 't',
      },
      ts: at,
    });
    await until(
      () => Promise.resolve(route.dropped.size),
      (n) => n === 1,
    );
    await pauseAhead(w.page, 500);
    await w.page.clock.runFor(15_000);
    const stale = w.page.locator('main p.stale[role="status"]');
    await stale.waitFor();
    t.match(
      await stale.textContent(),
      /events was not answered \(timeout\); asking again/,
      'the room says its answer is stale',
    );
    t.equal(await rows.count(), shown, 'the last answer stays on screen');
    t.equal(await w.page.locator('main [role="alert"]').count(), 0, 'no error replaces it');

    // The backoff's first step: asked again, answered, no longer stale.
    await w.page.clock.runFor(1_000);
    await stale.waitFor({ state: 'detached' });
    t.ok((await rows.count()) > 0, 'the fresh answer is shown');
    t.equal(route.dropped.size, 1, 'one answer was lost, the next one taken');
    t.same(w.errors, []);
  },
);

t.test(
  'a first answer lost is asked again instead of leaving the room on an error',
  needsChromium,
  async (t) => {
    const node = await startCompanyNode(t);
    const w = await openPage(browser!);
    const route = await dropAnswers(w);
    route.dropNext();
    // Asked before the socket opens, the question goes over HTTP: held unanswered, so the room has nothing yet.
    await w.page.route(/\/query\/events/, () => undefined);
    await w.page.clock.install();
    await w.page.goto(`${node.url}/dashboard#/feed`);
    await w.page.waitForSelector('[data-link="live"]');
    await until(
      () => Promise.resolve(route.dropped.size),
      (n) => n === 1,
    );
    await pauseAhead(w.page, 500);
    await w.page.clock.runFor(15_000);
    await w.page.getByText('events was not answered in time; asking again…').waitFor();
    t.equal(await w.page.locator('main [role="alert"]').count(), 0, 'no error while it asks again');
    await w.page.clock.runFor(1_000);
    await w.page.locator('ol.feed li').first().waitFor();
    t.pass('the room shows the answer to the question asked again');
    t.same(w.errors, []);
  },
);
