/**
 * An item's version is its `ETag` (the count of its changes), and every item write honours `If-Match`:
 * a stale version is 409 `revision_advanced` and changes nothing, decided in log order, so of two edits
 * made against one version exactly one is taken.
 */
import t from 'tap';
import { Streams } from '../../bus/index.js';
import { OPS, call } from './fixtures/gateway-harness.js';
import { startWorkHarness } from './fixtures/work-harness.js';

const send = (url: string, body: unknown, ifMatch?: string, method = 'POST') =>
  call(url, {
    method,
    headers: {
      authorization: OPS,
      'content-type': 'application/json',
      ...(ifMatch === undefined ? {} : { 'if-match': ifMatch }),
    },
    body: JSON.stringify(body),
  });

t.test('item writes honour If-Match against the version the ETag gave', async (t) => {
  const w = await startWorkHarness(t);
  const created = await send(`${w.base}/work`, { project: 'ENG', title: 'Versioned' });
  t.equal(created.headers.get('etag'), '"1"', 'a create answers the first version');
  const read = await call(`${w.base}/work/ENG-1`);
  t.equal(read.headers.get('etag'), '"1"');
  t.equal(read.json?.version, 1);

  const edited = await send(`${w.base}/work/ENG-1`, { title: 'Renamed' }, '"1"', 'PATCH');
  t.equal(edited.status, 200);
  t.equal(edited.headers.get('etag'), '"2"', 'each change counts');
  const seq = (await w.bus.streamInfo(Streams.Work)).lastSeq;

  const stale = [
    await send(`${w.base}/work/ENG-1`, { title: 'Lost' }, '"1"', 'PATCH'),
    await send(`${w.base}/work/ENG-1/move`, { to: 'todo' }, '1'),
    await send(`${w.base}/work/ENG-1/comments`, { body: 'late' }, '"1"'),
    await send(`${w.base}/work/ENG-1/purge`, { confirm: 'ENG-1', project: 'ENG', reason: 'x' }, '"1"'),
  ];
  for (const r of stale) {
    t.equal(r.status, 409);
    t.equal(r.json?.error, 'revision_advanced');
    t.match(r.json?.detail, /ENG-1 is at version 2, not 1/);
  }
  // "02" is not the tag "2": If-Match compares the characters (RFC 9110 8.8.3.2), not the number.
  for (const tag of ['*', 'W/"2"', `"${'9'.repeat(20)}"`, '"0"', '"02"']) {
    const r = await send(`${w.base}/work/ENG-1`, { title: 'Lost' }, tag, 'PATCH');
    t.equal(r.status, 400, `If-Match ${tag}`);
    t.equal(r.json?.error, 'bad_params');
  }
  t.equal((await w.bus.streamInfo(Streams.Work)).lastSeq, seq, 'nothing recorded');
  t.equal((await call(`${w.base}/work/ENG-1`)).json?.title, 'Renamed');

  t.equal((await send(`${w.base}/work/ENG-1/move`, { to: 'todo' }, '"2"')).status, 200);
  t.equal((await send(`${w.base}/work/ENG-1/comments`, { body: 'now' })).status, 201, 'If-Match is optional');
  const last = await call(`${w.base}/work/ENG-1`);
  t.equal(last.headers.get('etag'), '"4"');
  const purged = await send(
    `${w.base}/work/ENG-1/purge`,
    { confirm: 'ENG-1', project: 'ENG', reason: 'done' },
    last.headers.get('etag')!,
  );
  t.equal(purged.status, 200, 'the current version purges it');
});

t.test('two edits made against one version: exactly one is taken', async (t) => {
  const w = await startWorkHarness(t);
  await send(`${w.base}/work`, { project: 'ENG', title: 'Contended' });
  const answers = await Promise.all(
    ['A', 'B', 'C'].map((title) => send(`${w.base}/work/ENG-1`, { title }, '"1"', 'PATCH')),
  );
  t.same(answers.map((r) => r.status).sort(), [200, 409, 409]);
  t.equal((await call(`${w.base}/work/ENG-1`)).json?.version, 2);
});

t.test(
  'an item If-Match listing several versions proceeds when any one is the current version',
  async (t) => {
    const w = await startWorkHarness(t);
    await send(`${w.base}/work`, { project: 'ENG', title: 'Listed' });
    const listed = await send(`${w.base}/work/ENG-1`, { title: 'Taken' }, '"7", "1"', 'PATCH');
    t.equal(listed.status, 200, 'RFC 9110 13.1.1: any listed tag may match');
    t.equal(listed.headers.get('etag'), '"2"');
    const weakBeside = await send(`${w.base}/work/ENG-1`, { title: 'Lost' }, 'W/"2", "5"', 'PATCH');
    t.equal(weakBeside.status, 409, 'a weak tag never matches, even listed beside a strong one');
    t.equal(weakBeside.json?.error, 'revision_advanced');
    const none = await send(`${w.base}/work/ENG-1`, { title: 'Lost' }, '"5", "6"', 'PATCH');
    t.equal(none.status, 409, 'a list naming no current version is stale');
    t.equal((await call(`${w.base}/work/ENG-1`)).json?.title, 'Taken');
  },
);
