/**
 * The retry handle of the work writes (ops/work-tracker.md "Writes"): an op_id answers for its first
 * gesture only, and the body and the query may not name two; and the personal routes say what they need.
 */
import t from 'tap';
import { Streams } from '../../bus/index.js';
import { CI, OPS, call, openAuth } from './fixtures/gateway-harness.js';
import { startWorkHarness } from './fixtures/work-harness.js';

const send = (url: string, body: unknown, method = 'POST', auth = OPS) =>
  call(url, {
    method,
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

t.test('an op_id used by a write on another item is refused 409 op_id_reused', async (t) => {
  const w = await startWorkHarness(t);
  await send(`${w.base}/work`, { project: 'ENG', title: 'First', op_id: 'op-0' });
  const made = await send(`${w.base}/work`, { project: 'ENG', title: 'Second', op_id: 'op-1' });
  t.equal(made.json?.key, 'ENG-2');
  const before = (await w.bus.streamInfo(Streams.Work)).lastSeq;
  const cases: Array<[string, string, unknown]> = [
    ['PATCH', '/work/ENG-1', { title: 'hijack', op_id: 'op-1' }],
    ['PATCH', '/work/ENG-2', { title: 'hijack', op_id: 'op-1' }],
    ['POST', '/work/ENG-2/move', { to: 'todo', op_id: 'op-1' }],
    ['POST', '/work', { project: 'OPS', title: 'Elsewhere', op_id: 'op-1' }],
    ['POST', '/work/views/saved', { name: 'V', filter: { project: 'ENG' }, op_id: 'op-1' }],
  ];
  for (const [method, path, body] of cases) {
    const r = await send(`${w.base}${path}`, body, method);
    t.equal(r.status, 409, `${method} ${path}`);
    t.equal(r.json?.error, 'op_id_reused', `${method} ${path}`);
    t.match(r.json?.detail, /op-1/);
  }
  t.equal((await w.bus.streamInfo(Streams.Work)).lastSeq, before, 'nothing appended');
  t.equal((await call(`${w.base}/work/ENG-1`)).json?.title, 'First', 'ENG-1 untouched');
  const retry = await send(`${w.base}/work`, { project: 'ENG', title: 'Second, edited', op_id: 'op-1' });
  t.equal(retry.status, 200, 'the same gesture is still a retry');
  t.equal(retry.json?.outcome, 'repeated');
  t.equal(retry.json?.key, 'ENG-2');
  await send(`${w.base}/work/ENG-1`, { title: 'Renamed', op_id: 'u-1' }, 'PATCH');
  const again = await send(`${w.base}/work/eng-1`, { title: 'Renamed', op_id: 'u-1' }, 'PATCH');
  t.equal(again.json?.outcome, 'repeated', 'an update retried by key in another case');
  const elsewhere = await send(`${w.base}/work/ENG-2`, { title: 'Renamed', op_id: 'u-1' }, 'PATCH');
  t.equal(elsewhere.json?.error, 'op_id_reused', 'the same kind on another item');
});

t.test(
  'of one create sent at once several times with one op_id, one applies and the rest answer repeated',
  async (t) => {
    const w = await startWorkHarness(t);
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        send(`${w.base}/work`, { project: 'OPS', title: `copy ${i}`, op_id: 'race-op' }),
      ),
    );
    t.same(
      answers.map((a) => a.json?.key),
      answers.map(() => 'OPS-1'),
      'one item made',
    );
    t.same(answers.map((a) => `${a.status} ${String(a.json?.outcome)}`).sort(), [
      '200 repeated',
      '200 repeated',
      '200 repeated',
      '200 repeated',
      '200 repeated',
      '201 applied',
    ]);
  },
);

t.test('body and query naming two op_ids are refused 400 op_id_invalid', async (t) => {
  const w = await startWorkHarness(t);
  const two = await send(`${w.base}/work?op_id=q1`, { project: 'ENG', title: 'x', op_id: 'b1' });
  t.equal(two.status, 400);
  t.equal(two.json?.error, 'op_id_invalid');
  t.equal((await w.bus.streamInfo(Streams.Work)).lastSeq, 0, 'nothing appended');
  const same = await send(`${w.base}/work?op_id=s1`, { project: 'ENG', title: 'x', op_id: 's1' });
  t.equal(same.status, 201, 'the same op_id in both is one');
  t.equal(same.json?.op_id, 's1');
  const query = await send(`${w.base}/work?op_id=q2`, { project: 'ENG', title: 'y' });
  t.equal(query.json?.op_id, 'q2', 'the query alone names it');
});

t.test('my-work without a credential says a bound token or a handle is needed', async (t) => {
  const w = await startWorkHarness(t);
  const anonymous = await call(`${w.base}/work/my-work`);
  t.equal(anonymous.status, 400);
  t.equal(anonymous.json?.error, 'bad_params');
  t.match(anonymous.json?.detail, /no credential was sent/);
  t.notMatch(anonymous.json?.detail, /this credential/);
  const unbound = await call(`${w.base}/work/my-work`, { headers: { authorization: CI } });
  t.match(unbound.json?.detail, /this token is bound to no seat: name the person with \?handle=/);
  const named = await call(`${w.base}/work/my-work?handle=bob`, { headers: { authorization: CI } });
  t.equal(named.status, 200, 'a token naming the person is answered');
});

t.test('with the guard disabled, my-work asks the anonymous caller for ?handle=', async (t) => {
  const w = await startWorkHarness(t, { auth: { ...openAuth, disabled: true } });
  const nobody = await call(`${w.base}/work/my-work`);
  t.equal(nobody.status, 400);
  t.match(nobody.json?.detail, /guard is disabled.*\?handle=/);
  t.equal((await call(`${w.base}/work/my-work?handle=ada`)).status, 200, 'a handle is answered');
});
