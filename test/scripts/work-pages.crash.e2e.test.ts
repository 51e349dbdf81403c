/**
 * Crash safety of the native tracker and knowledge base on a real `svc serve` child over a store that
 * outlives it, on both engines (ops/work-tracker.md "Keys", "Writes"; ops/knowledge-base.md "op_id and
 * retries"): writers create items, comment, rename, create pages and comment on a page at once; the node is
 * killed with SIGKILL mid-stream and started again on the same store. Every write answered 2xx reads back,
 * a retry of each with its op_id writes nothing twice (acknowledged ones answer `repeated` with their first
 * key or page), the counters agree with the items, and no key handed out before the kill is handed out
 * again, not even one purged and trimmed from the log.
 */
import t, { type Test } from 'tap';
import { applyNativeWork, nativeBackends, nativeWorkCompany } from '../harness/native-work.js';
import { bootNode, storeDir, type BootedNode, type StoreDir } from '../harness/serve-store.js';
import { until } from '../harness/until.js';

type Json = Record<string, unknown>;

/** One write: its op_id, route and body; `acked` is its 2xx answer. */
interface Write {
  readonly op: string;
  readonly method: string;
  readonly path: string;
  readonly body: Json;
  acked?: Json;
}

const KILL_AFTER_ACKS = 60;
const WRITERS = 12;

async function send(node: BootedNode, w: Write): Promise<{ status: number; json: Json }> {
  const res = await node.call(w.method, w.path, {
    body: JSON.stringify({ ...w.body, op_id: w.op }),
    headers: { 'content-type': 'application/json' },
  });
  return { status: res.status, json: (await res.json()) as Json };
}

const read = async (node: BootedNode, path: string): Promise<Json> =>
  (await (await node.call('GET', path)).json()) as Json;

const keyNumber = (key: unknown): number => Number(String(key).split('-')[1]);

async function allItems(node: BootedNode): Promise<Json[]> {
  const items: Json[] = [];
  let cursor: string | null = null;
  do {
    const page = await read(
      node,
      `/work?project=ENG&limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    items.push(...(page['items'] as Json[]));
    cursor = page['next'] as string | null;
  } while (cursor);
  return items;
}

async function bootTracker(t: Test, store: StoreDir): Promise<BootedNode> {
  const node = await bootNode(t, store, nativeBackends);
  await applyNativeWork(t, [node.url], nativeWorkCompany(), 'crash');
  // The space is its own read model, applied with the same revision.
  await until(
    async () => (await node.call('GET', '/containers')).text(),
    (spaces) => spaces.includes('"ENG"'),
  );
  return node;
}

/** The i-th write of the stream: two creates, a comment, a rename, a page, a page comment. */
function nth(i: number, pageId: string): Write {
  switch (i % 6) {
    case 0:
    case 1:
      return { op: `c-${i}`, method: 'POST', path: '/work', body: { project: 'ENG', title: `item ${i}` } };
    case 2:
      return { op: `m-${i}`, method: 'POST', path: '/work/ENG-1/comments', body: { body: `comment ${i}` } };
    case 3:
      return { op: `u-${i}`, method: 'PATCH', path: '/work/ENG-1', body: { title: `renamed ${i}` } };
    case 4:
      return {
        op: `p-${i}`,
        method: 'POST',
        path: '/pages',
        body: { container: 'ENG', title: `page ${i}`, body: `body ${i}` },
      };
    default:
      return {
        op: `pc-${i}`,
        method: 'POST',
        path: `/pages/${pageId}/comments`,
        body: { body: `note ${i}` },
      };
  }
}

/** Runs the stream from WRITERS writers and kills the node once KILL_AFTER_ACKS writes were answered 2xx. */
async function streamThenKill(node: BootedNode, pageId: string): Promise<Write[]> {
  const writes: Write[] = [];
  let acks = 0;
  let killed = false;
  const writer = async (): Promise<void> => {
    while (!killed) {
      const w = nth(writes.length, pageId);
      writes.push(w);
      try {
        const answer = await send(node, w);
        if (answer.status < 300) {
          w.acked = answer.json;
          acks++;
        }
      } catch {
        // cut by the kill: not acknowledged
      }
      if (acks >= KILL_AFTER_ACKS && !killed) {
        killed = true;
        node.run.kill('SIGKILL');
      }
    }
  };
  await Promise.all(Array.from({ length: WRITERS }, writer));
  await node.run.exited;
  return writes;
}

for (const engine of ['memory', 'jetstream-embedded'] as const) {
  t.test(
    `work and page writes acknowledged before a kill -9 read back once after the restart (${engine})`,
    async (t) => {
      const store = storeDir(t, engine);
      let node = await bootTracker(t, store);
      const base: Write = {
        op: 'base',
        method: 'POST',
        path: '/work',
        body: { project: 'ENG', title: 'base' },
      };
      t.equal((await send(node, base)).json['key'], 'ENG-1');
      const page = await send(node, {
        op: 'page-base',
        method: 'POST',
        path: '/pages',
        body: { container: 'ENG', title: 'Base page' },
      });
      const pageId = String(page.json['page_id']);

      const writes = await streamThenKill(node, pageId);
      const acked = writes.filter((w) => w.acked);
      t.ok(acked.length >= KILL_AFTER_ACKS, `${acked.length} of ${writes.length} writes acknowledged`);
      const handedOut = Math.max(
        ...acked.filter((w) => w.acked?.['key']).map((w) => keyNumber(w.acked?.['key'])),
      );

      node = await bootNode(t, store, nativeBackends);
      const byTitle = new Map((await allItems(node)).map((i) => [i['title'], i['key']]));
      const thread = () =>
        read(node, '/work/ENG-1').then((i) => (i['thread'] as Json[]).map((c) => c['body']));
      const notes = () =>
        read(node, `/pages/${pageId}`).then((p) => (p['comments'] as Json[]).map((c) => c['body']));
      const [threadRead, notesRead] = [await thread(), await notes()];
      for (const w of acked) {
        if (w.op.startsWith('c-'))
          t.equal(byTitle.get(w.body['title']), w.acked?.['key'], `${w.op} under its key`);
        if (w.op.startsWith('m-')) t.ok(threadRead.includes(w.body['body']), `${w.op} in the thread`);
        if (w.op.startsWith('pc-')) t.ok(notesRead.includes(w.body['body']), `${w.op} on the page`);
        if (w.op.startsWith('p-'))
          t.equal(
            (await node.call('GET', `/pages/${String(w.acked?.['page_id'])}`)).status,
            200,
            `${w.op} reads`,
          );
      }

      // Every write sent again with its op_id: the acknowledged ones answer their first outcome.
      for (const w of writes) {
        const again = await send(node, w);
        t.ok(
          again.status < 300,
          `${w.op} retried: ${again.status} ${JSON.stringify(again.json).slice(0, 200)}`,
        );
        if (!w.acked) continue;
        t.equal(again.status, 200, `${w.op} retried answers 200`);
        t.ok(again.json['outcome'] === 'repeated' || again.json['repeated'] === true, `${w.op} repeated`);
        if (w.acked['key']) t.equal(again.json['key'], w.acked['key'], `${w.op} keeps its key`);
        if (w.acked['page_id']) t.equal(again.json['page_id'], w.acked['page_id'], `${w.op} keeps its page`);
      }
      const count = (prefix: string) => writes.filter((w) => w.op.startsWith(prefix)).length;
      const items = await allItems(node);
      const made = items.map((i) => String(i['title'])).filter((title) => title.startsWith('item '));
      t.equal(made.length, count('c-'), 'each create made one item');
      t.equal(new Set(made).size, made.length, 'no item twice');
      t.equal(new Set(items.map((i) => i['key'])).size, items.length, 'no key twice');
      const comments = await thread();
      t.equal(comments.length, count('m-'), 'each comment once');
      t.equal(new Set(comments).size, comments.length, 'no comment twice');
      const pageNotes = await notes();
      t.equal(pageNotes.length, count('pc-'), 'each page comment once');
      const pages = (await read(node, '/pages?container=ENG&limit=200'))['pages'] as Json[];
      t.equal(pages.length, count('p-') + 1, 'each page once');

      const fresh = await send(node, {
        op: 'fresh',
        method: 'POST',
        path: '/work',
        body: { project: 'ENG', title: 'fresh' },
      });
      t.ok(keyNumber(fresh.json['key']) > handedOut, `${String(fresh.json['key'])} is past ENG-${handedOut}`);
      const project = (await read(node, '/work/projects/ENG')) as { task_counts?: Record<string, number> };
      const counts = Object.values(project.task_counts ?? {}).reduce((a, b) => a + b, 0);
      t.equal(counts, items.length + 1, 'task_counts count every item');
      t.equal(await node.stop(), 0);
    },
  );
}

t.test('a key purged and trimmed from the log before a kill -9 is not handed out again', async (t) => {
  const store = storeDir(t, 'memory');
  let node = await bootTracker(t, store);
  for (let i = 1; i <= 3; i++) {
    const made = await send(node, {
      op: `c${i}`,
      method: 'POST',
      path: '/work',
      body: { project: 'ENG', title: `i${i}` },
    });
    t.equal(made.json['key'], `ENG-${i}`);
  }
  const purge = { confirm: 'ENG-3', project: 'ENG', reason: 'test' };
  t.equal(
    (await send(node, { op: 'purge3', method: 'POST', path: '/work/ENG-3/purge', body: purge })).status,
    200,
  );
  // The node's first heartbeat holds the log until it acknowledges the purge (every 5 s while unacknowledged).
  const trim = await until(
    () => send(node, { op: 'trim', method: 'POST', path: '/work/retention/trim', body: {} }),
    (answer) => answer.status !== 409,
    { everyMs: 250 },
  );
  t.equal(trim.status, 200, JSON.stringify(trim.json));
  node.run.kill('SIGKILL');
  await node.run.exited;

  node = await bootNode(t, store, nativeBackends);
  const next = await send(node, {
    op: 'c4',
    method: 'POST',
    path: '/work',
    body: { project: 'ENG', title: 'i4' },
  });
  t.equal(next.json['key'], 'ENG-4', 'the purged number stays used');
  const retry = await send(node, {
    op: 'c2',
    method: 'POST',
    path: '/work',
    body: { project: 'ENG', title: 'i2' },
  });
  t.match(
    retry.json,
    { outcome: 'repeated', key: 'ENG-2' },
    'a create from the trimmed records still repeats',
  );
  t.equal((await node.call('GET', '/work/ENG-3')).status, 404);
  t.equal(await node.stop(), 0);
});
