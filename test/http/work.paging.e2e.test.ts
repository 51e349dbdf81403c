/**
 * The work lists page by keyset: a cursor names the last row shown, so items created, moved or purged
 * between two page reads never make a page repeat or skip one, and a cursor that is not one of the
 * list's own is refused.
 */
import t from 'tap';
import { sendCommand } from '../../bus/index.js';
import { Commands } from '../../schema/index.js';
import { CI, OPS, call } from './fixtures/gateway-harness.js';
import { startWorkHarness, type WorkHarness } from './fixtures/work-harness.js';

type Json = Record<string, unknown>;

const post = (url: string, body: unknown, auth = OPS) =>
  call(url, {
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

async function create(w: WorkHarness, n: number, extra: Json = {}): Promise<void> {
  for (let i = 0; i < n; i++) await post(`${w.base}/work`, { project: 'ENG', title: `Item ${i}`, ...extra });
}

/** One page of a list: the keys (or bodies) it shows and its `next`. */
async function page(w: WorkHarness, path: string, field: string, name: string) {
  const res = await call(`${w.base}${path}`, { headers: { authorization: OPS } });
  const rows = (res.json?.[field] ?? []) as Json[];
  return { names: rows.map((r) => String(r[name])), next: (res.json?.next ?? null) as string | null };
}

const withCursor = (path: string, cursor: string | null) =>
  cursor === null ? path : `${path}&cursor=${encodeURIComponent(cursor)}`;

t.test('GET /work: an item created or purged between page reads neither repeats nor skips one', async (t) => {
  const w = await startWorkHarness(t);
  await create(w, 11);
  const first = await page(w, '/work?limit=3', 'items', 'key');
  t.same(first.names, ['ENG-11', 'ENG-10', 'ENG-9']);
  await create(w, 1);
  const second = await page(w, withCursor('/work?limit=3', first.next), 'items', 'key');
  t.same(second.names, ['ENG-8', 'ENG-7', 'ENG-6'], 'the item created meanwhile does not push ENG-9 back in');
  const purged = await post(`${w.base}/work/ENG-5/purge`, { confirm: 'ENG-5', project: 'ENG', reason: 'x' });
  t.equal(purged.status, 200);
  await post(`${w.base}/work/ENG-10/purge`, { confirm: 'ENG-10', project: 'ENG', reason: 'x' });
  const third = await page(w, withCursor('/work?limit=3', second.next), 'items', 'key');
  t.same(third.names, ['ENG-4', 'ENG-3', 'ENG-2'], 'items purged before or after the cursor skip nothing');
  const last = await page(w, withCursor('/work?limit=3', third.next), 'items', 'key');
  t.same(last.names, ['ENG-1']);
  t.equal(last.next, null, 'the last page has no next');
});

t.test('GET /work with a filter: an item moved out of it between reads skips no other', async (t) => {
  const w = await startWorkHarness(t);
  await create(w, 6, { status: 'todo' });
  const path = '/work?status=todo,backlog&priority=none&limit=2';
  const first = await page(w, path, 'items', 'key');
  t.same(first.names, ['ENG-6', 'ENG-5']);
  await post(`${w.base}/work/ENG-6/move`, { to: 'in_progress' });
  await create(w, 1, { status: 'todo' });
  const second = await page(w, withCursor(path, first.next), 'items', 'key');
  t.same(second.names, ['ENG-4', 'ENG-3'], 'an offset would have skipped ENG-4');
  const third = await page(w, withCursor(path, second.next), 'items', 'key');
  t.same(third.names, ['ENG-2', 'ENG-1']);
  t.equal(third.next, null);
});

t.test('a cursor that is not one this list gave answers 400 bad_params naming it', async (t) => {
  const w = await startWorkHarness(t);
  await create(w, 3);
  await post(`${w.base}/work/ENG-1/comments`, { body: 'one' });
  await post(`${w.base}/work/ENG-1/comments`, { body: 'two' });
  const comments = await page(w, '/work/comments?item=ENG-1&limit=1', 'comments', 'body');
  t.type(comments.next, 'string');
  const items = await page(w, '/work?limit=1', 'items', 'key');
  const refused = async (path: string, why: string) => {
    const res = await call(`${w.base}${path}`, { headers: { authorization: OPS } });
    t.equal(res.status, 400, why);
    t.equal(res.json?.error, 'bad_params', why);
    t.match(res.json?.detail, /`cursor`/, why);
  };
  for (const bad of ['3', '1e3', '%203', '3.0', '-1', 'bm90IGpzb24', '%E2%9C%93', `${items.next}x`])
    await refused(`/work?cursor=${bad}`, `/work?cursor=${bad}`);
  await refused(`/work?cursor=${comments.next}`, 'a comments cursor on /work');
  await refused(`/work/comments?item=ENG-1&cursor=${items.next}`, 'a /work cursor on comments');
  await refused(`/work/turns?id=ENG-1&cursor=2`, 'an offset on turns');
  await refused(`/work/inbox?cursor=1e3`, 'a number on the inbox');
  await refused(`/work/inbox?cursor=${items.next}`, 'a /work cursor on the inbox');
});

t.test('a cursor of another item, other filters, altered or made by hand is refused', async (t) => {
  const w = await startWorkHarness(t);
  await create(w, 3);
  for (const item of ['ENG-1', 'ENG-2'])
    for (const body of ['one', 'two']) await post(`${w.base}/work/${item}/comments`, { body });
  const comments = await page(w, '/work/comments?item=ENG-1&limit=1', 'comments', 'body');
  const items = await page(w, '/work?project=ENG&limit=1', 'items', 'key');
  const reseal = (cursor: string, change: Json) => {
    const [token, seal] = cursor.split('.');
    const body = JSON.parse(Buffer.from(token!, 'base64url').toString()) as Json;
    return `${Buffer.from(JSON.stringify({ ...body, ...change })).toString('base64url')}.${seal}`;
  };
  const bare = (body: Json) => Buffer.from(JSON.stringify(body)).toString('base64url');
  const refused = async (path: string, why: string) => {
    const res = await call(`${w.base}${path}`, { headers: { authorization: OPS } });
    t.equal(res.status, 400, why);
    t.equal(res.json?.error, 'bad_params', why);
    t.match(res.json?.detail, /`cursor`/, why);
  };
  await refused(`/work/comments?item=ENG-2&cursor=${comments.next}`, "ENG-1's comments cursor on ENG-2");
  await refused(`/work/turns?id=ENG-1&cursor=${comments.next}`, 'a comments cursor on turns');
  await refused(`/work?project=OPS&limit=1&cursor=${items.next}`, 'a /work cursor with another project');
  await refused(`/work?limit=1&cursor=${items.next}`, 'a /work cursor without its filter');
  await refused(`/work?project=ENG&cursor=${reseal(items.next!, { k: 1 })}`, 'its key altered');
  await refused(`/work/comments?item=ENG-1&cursor=${reseal(comments.next!, { k: 0 })}`, 'altered');
  await refused(`/work?cursor=${bare({ o: 'work', k: 1, id: 'x' })}`, 'a /work cursor made by hand');
  await refused(`/work/comments?item=ENG-1&cursor=${bare({ o: 'comments', k: 1, id: 'x' })}`, 'by hand');
  await refused(`/work/inbox?cursor=${bare({ o: 'inbox', k: 2, id: 'SVC_WORK@1:2' })}`, 'an inbox by hand');
  const same = await call(`${w.base}/work?limit=1&project=ENG&cursor=${items.next}`, {
    headers: { authorization: OPS },
  });
  t.equal(same.status, 200, 'the same filters in another order and limit page on');
  const purged = await post(`${w.base}/work/ENG-3/purge`, { confirm: 'ENG-3', project: 'ENG', reason: 'x' });
  t.equal(purged.status, 200);
  const after = await page(w, withCursor('/work?project=ENG&limit=1', items.next), 'items', 'key');
  t.same(after.names, ['ENG-2'], "the cursor's own item purged between pages still pages on");
});

t.test('GET /work/comments: a comment added between page reads repeats none', async (t) => {
  const w = await startWorkHarness(t);
  await create(w, 1);
  for (let i = 1; i <= 5; i++) await post(`${w.base}/work/ENG-1/comments`, { body: `c${i}` });
  const path = '/work/comments?item=ENG-1&limit=2';
  const first = await page(w, path, 'comments', 'body');
  t.same(first.names, ['c5', 'c4']);
  await post(`${w.base}/work/ENG-1/comments`, { body: 'c6' });
  const second = await page(w, withCursor(path, first.next), 'comments', 'body');
  t.same(second.names, ['c3', 'c2'], 'an offset would have shown c4 again');
  const last = await page(w, withCursor(path, second.next), 'comments', 'body');
  t.same(last.names, ['c1']);
  t.equal(last.next, null);
});

t.test('GET /work/turns: a turn recorded between page reads repeats none', async (t) => {
  const w = await startWorkHarness(t);
  await create(w, 1);
  const byTurn = async (turn: string) => {
    const reply = await sendCommand(w.bus, Commands.work.write, {
      op_id: `op-${turn}`,
      actor: 'coder',
      turn_id: turn,
      change: { kind: 'comment', item: 'ENG-1', body: `from ${turn}` },
    });
    if (reply.outcome === 'ok') await w.view.until(reply.seq, 10_000);
  };
  for (const turn of ['t1', 't2', 't3', 't4']) await byTurn(turn);
  const path = '/work/turns?id=ENG-1&limit=2';
  const first = await page(w, path, 'turns', 'turn_id');
  t.same(first.names, ['t4', 't3']);
  await byTurn('t5');
  const second = await page(w, withCursor(path, first.next), 'turns', 'turn_id');
  t.same(second.names, ['t2', 't1'], 'an offset would have shown t3 again');
  t.equal(second.next, null);
});

t.test('GET /work/inbox: a row arriving between page reads repeats none', async (t) => {
  const w = await startWorkHarness(t);
  await create(w, 4, { assignees: ['ada'] });
  // Changes by coder's token to ada's items are her inbox rows.
  for (const key of ['ENG-1', 'ENG-2', 'ENG-3', 'ENG-4'])
    await post(`${w.base}/work/${key}/comments`, { body: `on ${key}` }, CI);
  const path = '/work/inbox?limit=2';
  const first = await page(w, path, 'items', 'key');
  t.same(first.names, ['ENG-4', 'ENG-3']);
  await post(`${w.base}/work/ENG-1/comments`, { body: 'again' }, CI);
  const second = await page(w, withCursor(path, first.next), 'items', 'key');
  t.same(second.names, ['ENG-2', 'ENG-1']);
});

t.test('GET /work/turns: 20 turns a page unless asked, at most 50', async (t) => {
  const w = await startWorkHarness(t);
  await create(w, 1);
  for (let i = 1; i <= 52; i++) {
    const reply = await sendCommand(w.bus, Commands.work.write, {
      op_id: `op-t${i}`,
      actor: 'coder',
      turn_id: `t${i}`,
      change: { kind: 'comment', item: 'ENG-1', body: `from t${i}` },
    });
    if (reply.outcome === 'ok') await w.view.until(reply.seq, 10_000);
  }
  const first = await page(w, '/work/turns?id=ENG-1', 'turns', 'turn_id');
  t.equal(first.names.length, 20, 'default 20');
  t.equal(first.names[0], 't52', 'newest first');
  t.not(first.next, null, 'more remain');
  const most = await page(w, '/work/turns?id=ENG-1&limit=50', 'turns', 'turn_id');
  t.equal(most.names.length, 50, '50 is the max');
  const rest = await page(w, withCursor('/work/turns?id=ENG-1&limit=50', most.next), 'turns', 'turn_id');
  t.same(rest.names, ['t2', 't1']);
  for (const bad of ['limit=51', 'limit=0', 'limit=1000']) {
    const refused = await call(`${w.base}/work/turns?id=ENG-1&${bad}`, { headers: { authorization: OPS } });
    t.equal(refused.status, 400, bad);
    t.equal(refused.json?.error, 'bad_params', bad);
    t.match(refused.json?.detail, /limit/, `${bad}: the detail names the parameter`);
  }
});
