/**
 * A person's inbox state through the real gateway: rows marked read (by id and `all_before`), snoozed
 * until an instant and unsnoozed, the `unread` and `snoozed` filters and counts, retries by `op_id`, who
 * may act for whom, and a second node on the same bus answering the same.
 */
import t from 'tap';
import { CI, OPS, call } from './fixtures/gateway-harness.js';
import { startWorkHarness, type WorkHarness } from './fixtures/work-harness.js';

type Json = Record<string, unknown>;

const send = (url: string, body: unknown, auth: string | null = OPS, method = 'POST') =>
  call(url, {
    method,
    headers: { ...(auth ? { authorization: auth } : {}), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
const get = (url: string, auth = OPS) => call(url, { headers: { authorization: auth } });
const ids = (answer: { json?: Json | undefined }) =>
  (answer.json?.items as Json[]).map((r) => r.id as string);

/** Five changes by others that concern ada (assigned, asked, mentioned, watching). */
async function seed(w: WorkHarness): Promise<void> {
  await send(`${w.base}/work`, { project: 'ENG', title: 'Hers', assignees: ['ada'] }, CI);
  await send(`${w.base}/work`, { project: 'ENG', title: 'Asked', asked_of: ['ada'] }, CI);
  await send(`${w.base}/work/ENG-1/comments`, { body: 'look @ada' }, CI);
  await send(`${w.base}/work/ENG-1/move`, { to: 'in_progress' }, CI);
  await send(`${w.base}/work`, { project: 'OPS', title: 'Watched', watchers: ['ada'] }, CI);
}

t.test(
  'rows marked read leave the unread filter and the count; retries answer the first outcome',
  async (t) => {
    const w = await startWorkHarness(t);
    await seed(w);
    const all = await get(`${w.base}/work/inbox`);
    t.equal(all.json?.held, false);
    const rows = ids(all);
    t.equal(rows.length, 5);
    t.equal(all.json?.unread, 5);
    t.match(rows[0], /^SVC_WORK@1:\d+$/, 'a row id is its log position');
    t.ok((all.json?.items as Json[]).every((r) => r.unread === true && r.snoozed === false));

    const read = await send(`${w.base}/work/inbox/read`, { ids: [rows[0]], op_id: 'read-1' });
    t.equal(read.status, 200);
    t.equal(read.json?.outcome, 'applied');
    t.equal((read.json?.person as Json).held, true);
    t.same(((read.json?.person as Json).inbox as Json).read, [rows[0]]);
    t.equal(((read.json?.person as Json).inbox as Json).unread, 4);
    const again = await send(`${w.base}/work/inbox/read`, { ids: [rows[0]], op_id: 'read-1' });
    t.equal(again.json?.outcome, 'repeated');
    t.equal(again.json?.position, read.json?.position, 'the first outcome, nothing written again');
    t.equal((await w.bus.streamInfo('SVC_WORK')).lastSeq, Number(String(read.json?.position).split(':')[1]));

    t.same(ids(await get(`${w.base}/work/inbox?unread=true`)), rows.slice(1));
    t.same(ids(await get(`${w.base}/work/inbox?unread=false`)), [rows[0]]);
    const unreadPage = await get(`${w.base}/work/inbox?unread=true&limit=2`);
    t.same(ids(unreadPage), rows.slice(1, 3));
    const nextPage = await get(
      `${w.base}/work/inbox?unread=true&limit=2&cursor=${String(unreadPage.json?.next)}`,
    );
    t.same(ids(nextPage), rows.slice(3, 5));
    t.equal(nextPage.json?.next, null, 'the last page has no next');
    t.equal((await get(`${w.base}/work/inbox`)).json?.unread, 4);

    const through = await send(`${w.base}/work/inbox/read`, { all_before: rows[2] });
    t.equal(((through.json?.person as Json).inbox as Json).read_through, rows[2]);
    t.same(ids(await get(`${w.base}/work/inbox?unread=true`)), rows.slice(1, 2), 'at or before it: read');
    const head = String((await get(`${w.base}/work/inbox`)).json?.head);
    await send(`${w.base}/work/inbox/read`, { all_before: head });
    const none = await get(`${w.base}/work/inbox?unread=true`);
    t.same(ids(none), []);
    t.equal(none.json?.unread, 0);
    t.same(
      ((await get(`${w.base}/work/people/ada`)).json?.inbox as Json).read,
      [],
      'folded into read_through',
    );

    // A later change by someone else arrives unread.
    await send(`${w.base}/work/ENG-2/comments`, { body: 'and @ada?' }, CI);
    t.equal(ids(await get(`${w.base}/work/inbox?unread=true`)).length, 1);

    const refused = async (body: unknown, code: string, why: string) => {
      const answer = await send(`${w.base}/work/inbox/read`, body);
      t.equal(answer.status, 400, why);
      t.equal((answer.json?.error as Json | undefined)?.code ?? answer.json?.error, code, why);
    };
    await refused({ ids: [rows[0]], op_id: 'has space' }, 'op_id_invalid', 'op_id grammar');
    await refused({ ids: [rows[0]], op_id: 'x'.repeat(129) }, 'op_id_invalid', 'op_id length');
    await refused({}, 'invalid_body', 'neither ids nor all_before');
    await refused({ ids: ['nonsense'] }, 'invalid_body', 'not a position');
    await refused({ ids: ['SVC_WORK@2:1'] }, 'invalid_body', 'another generation');
    await refused({ ids: ['SVC_WORK@1:999'] }, 'validation_error', 'no such row');
    await refused({ all_before: 'SVC_WORK@1:999' }, 'validation_error', 'past the head');
    await refused({ ids: Array.from({ length: 201 }, () => rows[0]) }, 'invalid_body', 'at most 200 ids');
    await refused({ ids: [rows[0]], extra: 1 }, 'invalid_body', 'unknown fields');
  },
);

t.test('a snooze hides a row until its end; unsnooze brings it back; the filters and refusals', async (t) => {
  let clock = Date.parse('2026-11-26T10:00:00Z');
  const w = await startWorkHarness(t, { now: () => new Date(clock) });
  await seed(w);
  const rows = ids(await get(`${w.base}/work/inbox`));
  const until = '2026-11-26T12:00:00.000Z';
  const snoozed = await send(`${w.base}/work/inbox/snooze`, { ids: [rows[1], rows[3]], until, op_id: 's-1' });
  t.equal(snoozed.status, 200);
  t.same(
    ((snoozed.json?.person as Json).inbox as Json).snoozed,
    [
      { id: rows[3], until },
      { id: rows[1], until },
    ],
    'in log order',
  );
  const plain = await get(`${w.base}/work/inbox`);
  t.same(ids(plain), [rows[0], rows[2], rows[4]], 'excluded by default');
  t.equal(plain.json?.unread, 3, 'snoozed rows are not counted unread');
  const only = await get(`${w.base}/work/inbox?snoozed=only`);
  t.same(ids(only), [rows[1], rows[3]]);
  t.ok((only.json?.items as Json[]).every((r) => r.snoozed === true && r.snoozed_until === until));
  t.same(ids(await get(`${w.base}/work/inbox?snoozed=include`)), rows);
  t.same(ids(await get(`${w.base}/work/inbox?snoozed=only&limit=1`)), [rows[1]]);

  clock = Date.parse(until);
  const after = await get(`${w.base}/work/inbox`);
  t.same(ids(after), rows, 'the snooze ended at until');
  t.same(((await get(`${w.base}/work/people/ada`)).json?.inbox as Json).snoozed, []);

  await send(`${w.base}/work/inbox/snooze`, { ids: [rows[0]], until: '2026-11-27T00:00:00Z' });
  t.same(ids(await get(`${w.base}/work/inbox?snoozed=only`)), [rows[0]]);
  const unsnoozed = await send(`${w.base}/work/inbox/unsnooze`, { ids: [rows[0]], op_id: 'u-1' });
  t.equal(unsnoozed.json?.outcome, 'applied');
  t.same(ids(await get(`${w.base}/work/inbox?snoozed=only`)), []);

  for (const [body, why] of [
    [{ ids: [rows[0]], until: '2026-11-26T11:00:00Z' }, 'an end in the past'],
    [{ ids: [rows[0]], until: 'tomorrow' }, 'not an instant'],
    [{ ids: [rows[0]], until: '2027-02-30T00:00:00Z' }, 'a day the month lacks, not March 2'],
    [{ ids: [rows[0]], until: '2026-11-27T00:00:00' }, 'no offset: not read in the node time zone'],
    [{ ids: [rows[0]], until: '2028-01-01T00:00:00Z' }, 'more than 366 days ahead'],
    [{ ids: [], until: '2026-11-27T00:00:00Z' }, 'no rows'],
    [{ ids: ['SVC_WORK@1:999'], until: '2026-11-27T00:00:00Z' }, 'no such row'],
  ] as const) {
    const answer = await send(`${w.base}/work/inbox/snooze`, body);
    t.equal(answer.status, 400, why);
  }
  t.equal((await send(`${w.base}/work/inbox/unsnooze`, { ids: [] })).status, 400);
});

t.test(
  'who may act: own person, another only with a token, only human seats; every node answers alike',
  async (t) => {
    const w = await startWorkHarness(t);
    await seed(w);
    await send(`${w.base}/work/ENG-1/comments`, { body: 'bob, see @bob' }, CI);
    const bobRows = ids(await get(`${w.base}/work/inbox?handle=bob`, CI));
    t.equal(bobRows.length, 1);
    const forBob = await send(`${w.base}/work/inbox/read`, { ids: bobRows, handle: 'bob' }, CI);
    t.equal(forBob.status, 200, 'a token may act for another person');
    t.equal(forBob.json?.handle, 'bob');
    t.same(ids(await get(`${w.base}/work/inbox?handle=bob&unread=true`, CI)), []);
    t.equal(
      (await get(`${w.base}/work/inbox?unread=true`)).json?.unread,
      6,
      "bob's marks are not ada's (his row concerns her too)",
    );
    t.equal((await send(`${w.base}/work/inbox/read`, { ids: bobRows }, null)).status, 401, 'no token');
    const unbound = await send(`${w.base}/work/inbox/read`, { ids: bobRows }, CI);
    t.equal(unbound.json?.error, 'bad_params', 'an unbound token names a person');
    const agent = await send(`${w.base}/work/inbox/read`, { ids: bobRows, handle: 'coder' }, CI);
    t.equal(agent.status, 400);
    t.equal(agent.json?.error, 'validation_error', 'an agent seat keeps no inbox state');
    t.equal((await send(`${w.base}/work/inbox/read`, { ids: bobRows, handle: 'nobody' }, CI)).status, 400);

    const second = await startWorkHarness(t, { bus: w.bus });
    await second.view.until(w.view.state().seq, 30_000);
    for (const path of ['/work/people/bob', '/work/inbox?handle=bob&snoozed=include'])
      t.same((await get(`${second.base}${path}`, CI)).json, (await get(`${w.base}${path}`, CI)).json, path);
    t.equal(((await get(`${second.base}/work/people/bob`, CI)).json as Json).held, true);
  },
);
