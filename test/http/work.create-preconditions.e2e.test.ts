/**
 * Preconditions on the creates of the work tracker and knowledge base (`POST /work`, `POST /pages`), as
 * RFC 9110 13.1 reads them against what the create would make, which has no version yet: `If-Match` (a
 * version, or `*`) can match nothing, so it is 412 `precondition_failed` and nothing is recorded, never a
 * silent create; `If-None-Match` (`*` or a version) holds trivially and the item or page is created. A
 * header that is no list of tags is 400 `bad_params`, as on every other write of these routes.
 */
import t from 'tap';
import { Streams } from '../../bus/index.js';
import { OPS, call } from './fixtures/gateway-harness.js';
import { startPagesNode } from './fixtures/pages-node.js';
import { startWorkHarness } from './fixtures/work-harness.js';

t.test('POST /work: If-Match is 412 with nothing recorded; If-None-Match creates', async (t) => {
  const w = await startWorkHarness(t);
  const create = (title: string, headers: Record<string, string>) =>
    call(`${w.base}/work`, {
      method: 'POST',
      headers: { authorization: OPS, 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ project: 'ENG', title }),
    });
  const before = (await w.bus.streamInfo(Streams.Work)).lastSeq;
  for (const tag of ['"1"', '1', '*', '"1", "2"', 'W/"1"']) {
    const r = await create('Refused', { 'if-match': tag });
    t.equal(r.status, 412, `If-Match ${tag}`);
    t.equal(r.json?.error, 'precondition_failed', `If-Match ${tag}`);
    t.match(r.json?.detail, /If-Match/);
  }
  // An If-Match beside If-None-Match is judged first (RFC 9110 13.2.2) and fails alike.
  const both = await create('Refused', { 'if-match': '"1"', 'if-none-match': '*' });
  t.equal(both.status, 412);
  t.equal(both.json?.error, 'precondition_failed');
  t.equal((await w.bus.streamInfo(Streams.Work)).lastSeq, before, 'nothing recorded');
  t.equal((await call(`${w.base}/work/ENG-1`)).status, 404, 'no item made');

  for (const tag of ['*', '"1"', 'W/"3"']) {
    const r = await create(`Made ${tag}`, { 'if-none-match': tag });
    t.equal(r.status, 201, `If-None-Match ${tag}: what a create makes exists nowhere yet (${r.text})`);
  }
  const bad = await create('Refused', { 'if-none-match': '"1' });
  t.equal(bad.status, 400, 'a header that is no list of tags');
  t.equal(bad.json?.error, 'bad_params');
  t.equal((await call(`${w.base}/work/ENG-4`)).status, 404, 'nothing made by the refusal');
});

t.test('POST /pages: If-Match is 412 with nothing recorded; If-None-Match creates', async (t) => {
  const n = await startPagesNode(t);
  const create = (title: string, headers: Record<string, string>) =>
    n.call('POST', '/pages', { body: { container: 'ENG', title }, headers });
  for (const tag of ['"1"', '*']) {
    const r = await create('Refused', { 'if-match': tag });
    t.equal(r.status, 412, `If-Match ${tag}`);
    t.equal(r.json['error'], 'precondition_failed');
  }
  t.equal((await n.call('GET', '/pages/ENG/Refused')).status, 404, 'no page made');
  t.equal((await create('Made', { 'if-none-match': '*' })).status, 201);
  t.equal((await create('Also made', { 'if-none-match': '"1"' })).status, 201);
  const bad = await create('Refused', { 'if-none-match': '"1' });
  t.equal(bad.status, 400);
  t.equal(bad.json['error'], 'bad_params');
  t.equal((await n.call('GET', '/pages/ENG/Refused')).status, 404, 'still none');
});
