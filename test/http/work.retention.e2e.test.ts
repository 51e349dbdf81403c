import t from 'tap';
import { followWork } from '../../projections/index.js';
import { get, post, startRetentionHarness, type Json } from './fixtures/retention-harness.js';

const holders = (status: Json) => status.holders as Json[];
const holder = (status: Json, name: string) => holders(status).find((h) => h.name === name);

t.test('each node acknowledges what it applied; the status names the floor and who holds it', async (t) => {
  const w = await startRetentionHarness(t);
  await w.ack();
  const first = await get(`${w.base}/work/retention`);
  t.equal(first.status, 200);
  t.match(holder(first.json!, 'node-0'), { kind: 'node', live: true, current: true, admitted: true, seq: 0 });
  const created = await post(`${w.base}/work`, { project: 'ENG', title: 'One', op_id: 'c-1' });
  t.equal(created.status, 201);
  // Behind in sequences: the heartbeat at 1 and the item at 2.
  const behind = (await get(`${w.base}/work/retention`)).json!;
  t.match(holder(behind, 'node-0'), { current: false, behind: 2 }, 'the new item is not acknowledged yet');
  t.equal(behind.head, created.json?.position, 'the head is the newest record that needs applying');
  const seqBefore = await w.lastSeq();
  await w.ack();
  const after = (await get(`${w.base}/work/retention`)).json!;
  t.match(holder(after, 'node-0'), { current: true, behind: 0 });
  t.equal(after.floor, created.json?.position, 'the floor is the lowest acknowledgement');
  t.same(after.held_by, ['node-0']);
  t.match(after.log, { records: await w.lastSeq() });
  t.ok(((after.log as Json).bytes as number) > 0);
  t.match(after.trim, { available: true, last: null });
  t.same(
    after.effects,
    { consumer: 'work_effects', acknowledged_through: created.json?.position },
    "the effects consumer's acknowledgement: the item's task events and wakes are delivered",
  );
  t.equal(await w.lastSeq(), seqBefore + 1, 'one heartbeat');
  t.notOk(await w.acks.acknowledge(), 'nothing new: no heartbeat (heartbeats never need acknowledging)');
  t.equal(await w.lastSeq(), seqBefore + 1);
});

t.test('an operator acknowledges for a backup; a retry by op_id answers the first outcome', async (t) => {
  const w = await startRetentionHarness(t);
  await w.ack();
  await post(`${w.base}/work`, { project: 'ENG', title: 'One' });
  await post(`${w.base}/work`, { project: 'ENG', title: 'Two' });
  await w.ack();
  const body = { holder: 'backup', position: 'SVC_WORK@1:2', note: 'nightly', op_id: 'ack-1' };
  const first = await post(`${w.base}/work/retention/ack`, body);
  t.equal(first.status, 200);
  t.match(first.json, { op_id: 'ack-1', outcome: 'applied', kind: 'retention.acked' });
  t.match(first.json?.position, /^SVC_WORK@1:\d+$/);
  t.match(first.json?.holder, { name: 'backup', kind: 'external', seq: 2, admitted: true, live: null });
  const seq = await w.lastSeq();
  const again = await post(`${w.base}/work/retention/ack`, { ...body, position: 'SVC_WORK@1:3' });
  t.equal(again.status, 200);
  t.match(again.json, { outcome: 'repeated', position: first.json?.position });
  t.equal(await w.lastSeq(), seq, 'nothing appended');
  const status = (await get(`${w.base}/work/retention`)).json!;
  t.equal(status.floor, 'SVC_WORK@1:2', 'the backup holds the log back');
  t.same(status.held_by, ['backup']);
  const events = await w.events('work_retention_acked');
  t.equal(events.length, 1, 'one event, however often retried');
  t.match(events[0], {
    category: 'system',
    actor: 'ada',
    payload: { holder: 'backup', seq: 2, op_id: 'ack-1' },
  });
  for (const [position, code] of [
    ['nonsense', 'invalid_body'],
    ['SVC_PAGES@1:1', 'invalid_body'],
    ['SVC_WORK@2:1', 'validation_error'],
    ['SVC_WORK@1:999', 'validation_error'],
  ] as const) {
    const r = await post(`${w.base}/work/retention/ack`, { holder: 'backup', position });
    t.equal(r.status, 400, position);
    t.equal(r.json?.error, code, position);
    t.equal((r.json?.problems as Json[])[0]?.path, 'position', position);
  }
  const badHolder = await post(`${w.base}/work/retention/ack`, { holder: 'a.b', position: 'SVC_WORK@1:1' });
  t.equal(badHolder.json?.error, 'invalid_body');
});

t.test(
  'one gesture sent at once several times with one op_id applies once; the rest answer repeated',
  async (t) => {
    const w = await startRetentionHarness(t);
    const answers = await Promise.all(
      Array.from({ length: 6 }, () =>
        post(`${w.base}/work/retention/capacity`, { max_records: 1000, op_id: 'cap-race' }),
      ),
    );
    t.same(answers.map((a) => `${a.status} ${String(a.json?.outcome)}`).sort(), [
      '200 applied',
      '200 repeated',
      '200 repeated',
      '200 repeated',
      '200 repeated',
      '200 repeated',
    ]);
    t.equal((await w.events('work_retention_capacity_set')).length, 1, 'one event');
  },
);

t.test(
  'evict of a live node: the member_live hint offers nothing the route does not take (no ?force)',
  async (t) => {
    const w = await startRetentionHarness(t);
    await w.ack();
    const forced = await post(`${w.base}/work/retention/evict/node-0?force=true`, { reason: 'test' });
    t.equal(forced.json?.error, 'bad_params', '?force is refused, not passed over');
    t.match(forced.json?.detail, /does not read the parameter force/);
    const live = await post(`${w.base}/work/retention/evict/node-0`, { reason: 'test' });
    t.equal(live.status, 409, 'a live node is not evicted');
    t.equal(live.json?.error, 'member_live');
    t.notMatch(live.json?.hint, /force/, 'the hint does not send the caller to a parameter evict lacks');
    t.match(live.json?.hint, /GET \/work\/retention/, 'it says where to watch the node lag or leave');
  },
);

t.test('evict refuses a live, current node and an unknown one; readmit puts it back', async (t) => {
  const w = await startRetentionHarness(t);
  await w.ack();
  const unknown = await post(`${w.base}/work/retention/evict/ghost`, { op_id: 'e-0' });
  t.equal(unknown.status, 404);
  t.equal(unknown.json?.error, 'not_found');
  const live = await post(`${w.base}/work/retention/evict/node-0`, { reason: 'test' });
  t.equal(live.status, 409);
  t.equal(live.json?.error, 'member_live');
  // The node departs: its presence expires.
  w.live.delete('node-0');
  const evicted = await post(`${w.base}/work/retention/evict/node-0`, {
    reason: 'gone   for good',
    op_id: 'e-1',
  });
  t.equal(evicted.status, 200);
  t.match(evicted.json, { outcome: 'applied', kind: 'retention.evicted' });
  t.match(evicted.json?.holder, {
    name: 'node-0',
    admitted: false,
    evicted: { by: 'ada', reason: 'gone for good' },
  });
  const repeated = await post(`${w.base}/work/retention/evict/node-0`, { reason: 'x', op_id: 'e-1' });
  t.match(repeated.json, { outcome: 'repeated', position: evicted.json?.position });
  const twice = await post(`${w.base}/work/retention/evict/node-0`, { op_id: 'e-2' });
  t.equal(twice.status, 400, 'evicting an evicted node changes nothing');
  t.equal(twice.json?.error, 'validation_error');
  const status = (await get(`${w.base}/work/retention`)).json!;
  t.same(status.held_by, [], 'an evicted node holds nothing back');
  t.match(holder(status, 'node-0'), { live: false, admitted: false });
  await w.ack();
  t.match(
    holder((await get(`${w.base}/work/retention`)).json!, 'node-0'),
    { admitted: false },
    'a heartbeat does not readmit',
  );
  const back = await post(`${w.base}/work/retention/readmit/node-0`, { op_id: 'r-1' });
  t.equal(back.status, 200);
  t.match(back.json?.holder, { admitted: true, evicted: null });
  const admitted = await post(`${w.base}/work/retention/readmit/node-0`, {});
  t.equal(admitted.status, 400, 'readmitting an admitted node changes nothing');
  const nobody = await post(`${w.base}/work/retention/readmit/ghost`, {});
  t.equal(nobody.status, 404);
  t.equal((await w.events('work_retention_evicted')).length, 1);
  t.equal((await w.events('work_retention_readmitted')).length, 1);
});

t.test(
  'a reanchor starts a new generation; a holder acknowledged before it is readmitted only after a new acknowledgement',
  async (t) => {
    const w = await startRetentionHarness(t);
    await w.ack();
    await post(`${w.base}/work`, { project: 'ENG', title: 'Before' });
    await post(`${w.base}/work/retention/ack`, { holder: 'backup', position: 'SVC_WORK@1:1' });
    await post(`${w.base}/work/retention/evict/backup`, { reason: 'stale' });
    const stamp = await get(`${w.base}/work/retention/reanchor`);
    t.match(stamp.json, { stream: 'SVC_WORK', generation: 1, anchored_at: null, position: null });
    const noReason = await post(`${w.base}/work/retention/reanchor`, { generation: 1 });
    t.equal(noReason.json?.error, 'invalid_body', 'a reanchor names its reason');
    const re = await post(`${w.base}/work/retention/reanchor`, {
      generation: 1,
      reason: 'restored',
      op_id: 'ra-1',
    });
    t.equal(re.status, 200);
    t.match(re.json, { outcome: 'applied', generation: 2, anchored_by: 'ada', reason: 'restored' });
    t.equal(re.json?.position, (await get(`${w.base}/work/retention/reanchor`)).json?.position);
    const stale = await post(`${w.base}/work/retention/reanchor`, { generation: 1, reason: 'again' });
    t.equal(stale.status, 409);
    t.equal(stale.json?.error, 'revision_advanced');
    const item = await post(`${w.base}/work`, { project: 'ENG', title: 'After' });
    t.match(item.json?.position, /^SVC_WORK@2:\d+$/, 'positions carry the new generation');
    const readNew = await post(`${w.base}/work/inbox/read`, { ids: [item.json?.position] });
    t.equal(readNew.status, 200, 'an inbox row id of the new generation names its row');
    const ada = (await get(`${w.base}/work/people/ada`)).json?.inbox as Json;
    t.same(ada.read, [item.json?.position], 'a read mark shows the row id as it was given');
    const future = String(item.json?.position).replace('@2:', '@3:');
    t.equal((await post(`${w.base}/work/inbox/read`, { ids: [future] })).json?.error, 'invalid_body');
    const oldCursor = await get(`${w.base}/work/activity?since=SVC_WORK@1:0`);
    t.equal(oldCursor.status, 400);
    t.equal(oldCursor.json?.error, 'bad_params');
    const activity = await get(`${w.base}/work/activity?since=SVC_WORK@2:0&limit=1`);
    t.equal(activity.status, 200);
    t.match(activity.json?.next, /^SVC_WORK@2:/, 'the next cursor is of the current generation');
    const status = (await get(`${w.base}/work/retention`)).json!;
    t.match(holder(status, 'node-0'), { generation: 1, current: false });
    t.equal(status.floor, 'SVC_WORK@2:0', 'a node acknowledged in generation 1 holds the whole log');
    await w.ack();
    t.match(holder((await get(`${w.base}/work/retention`)).json!, 'node-0'), {
      generation: 2,
      current: true,
    });
    const trimmed = await post(`${w.base}/work/retention/readmit/backup`, {});
    t.equal(trimmed.status, 409);
    t.equal(trimmed.json?.error, 'position_trimmed');
    const renewed = await post(`${w.base}/work/retention/ack`, {
      holder: 'backup',
      position: item.json?.position,
    });
    t.equal(renewed.status, 200);
    const readmitted = await post(`${w.base}/work/retention/readmit/backup`, {});
    t.equal(readmitted.status, 200);
    t.match((await w.events('work_reanchored'))[0], {
      payload: { from: 1, generation: 2, reason: 'restored' },
    });
  },
);

t.test('the retention state folded again from the log is the one the live node holds', async (t) => {
  const w = await startRetentionHarness(t);
  await w.ack();
  await post(`${w.base}/work`, { project: 'ENG', title: 'One' });
  await post(`${w.base}/work/retention/ack`, { holder: 'backup', position: 'SVC_WORK@1:1' });
  await post(`${w.base}/work/retention/capacity`, { max_records: 50, max_age_seconds: 3600 });
  await post(`${w.base}/work/retention/maintenance`, { reason: 'weekly', op_id: 'm-1' });
  await post(`${w.base}/work/retention/maintenance/exclude`, { node: 'backup' });
  await post(`${w.base}/work/retention/maintenance/abandon`, { reason: 'later' });
  w.live.delete('node-0');
  await post(`${w.base}/work/retention/evict/node-0`, {});
  await post(`${w.base}/work/retention/reanchor`, { generation: 1, reason: 'restored' });
  await w.ack();
  await post(`${w.base}/work/retention/maintenance`, { op_id: 'm-2' });
  await w.settle();
  const replayed = await followWork({ bus: w.bus });
  t.teardown(() => replayed.stop());
  await replayed.until(await w.lastSeq(), 10_000);
  const live = w.view.state();
  const again = replayed.state();
  t.same(again.retention, live.retention, 'holders, capacity, windows, generation, anchor, ops, head, log');
  t.same([...again.ops.values()], [...live.ops.values()], 'item outcomes and their positions');
  t.equal(again.retention.generation, 2);
  t.equal(again.retention.window?.id, 'm-2');
  t.equal(again.retention.lastWindow?.state, 'abandoned');
});
