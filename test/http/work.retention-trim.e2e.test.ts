/**
 * `POST /work/retention/trim` over HTTP (ops/work-tracker.md "Retention"): refused while nothing may go
 * (no admitted holder, a holder at the start of the log, a log within its capacity), then a trim that
 * removes the records below the floor — only as far as the capacity asks — recorded and announced, a
 * retry answering the first outcome, a readmission below the trim refused, and a second node started on
 * the trimmed log serving the same items; without a snapshot that node answers 503 `work_unavailable`.
 */
import t from 'tap';
import { Buckets, Streams } from '../../bus/index.js';
import { get, post, startRetentionHarness } from './fixtures/retention-harness.js';
import { startWorkHarness } from './fixtures/work-harness.js';

t.test('a trim with nothing that may go is refused and records nothing', async (t) => {
  const w = await startRetentionHarness(t);
  await post(`${w.base}/work`, { project: 'ENG', title: 'One' });
  await w.settle();
  // node-0 acknowledged only its first heartbeat: records after it are held.
  w.live.delete('node-0');
  t.equal((await post(`${w.base}/work/retention/evict/node-0`, { reason: 'gone' })).status, 200);
  const seq = await w.lastSeq();
  const none = await post(`${w.base}/work/retention/trim`, { op_id: 't-0' });
  t.equal(none.status, 409);
  t.equal(none.json?.error, 'nothing_to_trim');
  t.match(none.json?.detail, /no admitted holder/);
  await post(`${w.base}/work/retention/ack`, { holder: 'backup', position: 'SVC_WORK@1:0' });
  const held = await post(`${w.base}/work/retention/trim`, {});
  t.equal(held.json?.error, 'nothing_to_trim', 'a holder at the start of the log holds it all');
  t.match(held.json?.detail, /floor is 0/);
  const ack = await post(`${w.base}/work/retention/ack`, { holder: 'backup', position: `SVC_WORK@1:${seq}` });
  t.equal(ack.status, 200);
  await post(`${w.base}/work/retention/capacity`, { max_records: 1000 });
  const within = await post(`${w.base}/work/retention/trim`, {});
  t.equal(within.json?.error, 'nothing_to_trim', 'the log is within its capacity');
  t.match(within.json?.detail, /within its capacity/);
  t.equal((await w.bus.streamInfo(Streams.Work)).firstSeq, 1, 'nothing removed');
  t.equal((await w.events('work_retention_trimmed')).length, 0);
});

t.test(
  'a trim removes what the capacity asks below the floor; a new node reads the same tracker',
  async (t) => {
    const w = await startRetentionHarness(t);
    const one = await post(`${w.base}/work`, { project: 'ENG', title: 'One', op_id: 'c-1' });
    await post(`${w.base}/work/ENG-1/comments`, { body: 'kept through the trim' });
    await post(`${w.base}/work`, { project: 'ENG', title: 'Two' });
    await post(`${w.base}/work/ENG-2/move`, { to: 'in_progress' });
    await post(`${w.base}/work/retention/ack`, { holder: 'backup', position: 'SVC_WORK@1:1' });
    await w.ack();
    // Over by three records once the capacity and the eviction are recorded too: the three oldest go,
    // not everything below the floor.
    const records = (await w.lastSeq()) + 2;
    await post(`${w.base}/work/retention/capacity`, { max_records: records - 3, op_id: 'cap' });
    await post(`${w.base}/work/retention/evict/backup`, { reason: 'its copy is elsewhere' });
    t.equal(await w.lastSeq(), records);
    const before = {
      items: (await get(`${w.base}/work?project=ENG`)).json,
      item: (await get(`${w.base}/work/ENG-1`)).json,
      comments: (await get(`${w.base}/work/ENG-1/comments`)).json,
    };
    const trimmed = await post(`${w.base}/work/retention/trim`, { op_id: 'trim-1' });
    t.equal(trimmed.status, 200, JSON.stringify(trimmed.json));
    t.match(trimmed.json, { op_id: 'trim-1', outcome: 'applied', kind: 'retention.trimmed' });
    t.match(trimmed.json?.trim, { below: 'SVC_WORK@1:4', records: 3, by: 'ada', op_id: 'trim-1' });
    t.match(await w.bus.streamInfo(Streams.Work), { firstSeq: 4 });
    const status = (await get(`${w.base}/work/retention`)).json!;
    t.match(status.trim, { available: true, last: { below: 'SVC_WORK@1:4', records: 3 } });
    const info = await w.bus.streamInfo(Streams.Work);
    t.match(status.log, { records: info.messages }, 'the log size counts what the stream holds');
    const again = await post(`${w.base}/work/retention/trim`, { op_id: 'trim-1' });
    t.match(again.json, { outcome: 'repeated', position: trimmed.json?.position });
    t.equal((await w.events('work_retention_trimmed')).length, 1, 'announced once');

    const readmit = await post(`${w.base}/work/retention/readmit/backup`, {});
    t.equal(readmit.status, 409, 'a holder acknowledged below the trim');
    t.equal(readmit.json?.error, 'position_trimmed');
    const stale = await post(`${w.base}/work/retention/ack`, { holder: 'backup', position: 'SVC_WORK@1:1' });
    t.equal(stale.json?.error, 'validation_error', 'a position below the trim is not in the log');

    // A second node started on the trimmed log serves the same tracker, and the next key follows.
    const second = await startWorkHarness(t, { bus: w.bus });
    t.equal(second.view.running.boot.from, 'snapshot');
    t.same((await get(`${second.base}/work?project=ENG`)).json, before.items);
    t.same((await get(`${second.base}/work/ENG-1`)).json, before.item);
    t.same((await get(`${second.base}/work/ENG-1/comments`)).json, before.comments);
    t.equal(one.json?.key, 'ENG-1');
    const three = await post(`${second.base}/work`, { project: 'ENG', title: 'Three' });
    t.equal(three.json?.key, 'ENG-3');

    // Without a readable snapshot a node does not serve an empty tracker.
    const kv = await w.bus.kv({ name: Buckets.WorkSnapshots, history: 1 });
    for (const key of await kv.keys()) await kv.delete(key);
    const blind = await startWorkHarness(t, { bus: w.bus });
    for (const path of ['/work?project=ENG', '/work/ENG-1', '/work/retention']) {
      const r = await get(`${blind.base}${path}`);
      t.equal(r.status, 503, path);
      t.equal(r.json?.error, 'work_unavailable');
    }
    const refused = await post(`${blind.base}/work`, { project: 'ENG', title: 'Lost' });
    t.equal(refused.status, 503);
  },
);
