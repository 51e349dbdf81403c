/**
 * The spec's per-value limits (a purge reason's 600 bytes, an op_id's 128 bytes of visible ASCII) refused by
 * a built `svc serve` with a detail that names what is wrong, so a caller can fix it from the answer alone.
 */
import t, { type Test } from 'tap';
import { startNode, TOKEN } from '../harness/serve-node.js';

type Answer = { status: number; json: Record<string, unknown> };

async function workNode(t: Test): Promise<(method: string, path: string, body?: unknown) => Promise<Answer>> {
  const node = await startNode(t, 'tracker: {backend: native}');
  const send = async (method: string, path: string, body?: unknown): Promise<Answer> => {
    const res = await fetch(`${node.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'x-summary': 'seed' },
      body: body === undefined ? null : JSON.stringify(body),
    });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  };
  const company = {
    name: 'Acme',
    units: [
      {
        name: 'Engineering',
        type: 'team',
        lead: 'Ada',
        roles: [{ name: 'Ada', kind: 'human', contact: { chat_user_id: 'U1' } }],
        integrations: { work: { project: 'ENG' } },
      },
    ],
  };
  t.equal((await send('PUT', '/config', company)).status, 201);
  t.equal((await send('POST', '/work', { project: 'ENG', title: 'Pasted a secret' })).status, 201);
  return send;
}

t.test(
  'a purge reason past 600 bytes is refused with a detail naming the reason, not the confirmation',
  async (t) => {
    const send = await workNode(t);
    for (const reason of ['x'.repeat(601), `${'é'.repeat(300)}x`, 'r'.repeat(100_000)]) {
      const res = await send('POST', '/work/ENG-1/purge', { confirm: 'ENG-1', project: 'ENG', reason });
      t.equal(res.status, 400);
      t.equal(res.json['error'], 'validation_error');
      t.match(res.json['problems'], [{ path: 'reason', message: /bytes on the notice line; at most 600/ }]);
      t.match(res.json['detail'], /reason/, 'the detail names the reason');
      t.notMatch(res.json['detail'], /not confirmed/, 'the purge was confirmed');
    }
    const wrong = await send('POST', '/work/ENG-1/purge', {
      confirm: 'ENG-9',
      project: 'ENG',
      reason: 'why',
    });
    t.match(wrong.json['detail'], /not confirmed/, 'a wrong confirmation still says so');
    t.equal((await send('GET', '/work/ENG-1')).status, 200, 'nothing was purged');
    const ok = await send('POST', '/work/ENG-1/purge', {
      confirm: 'ENG-1',
      project: 'ENG',
      reason: 'é'.repeat(300),
    });
    t.equal(ok.status, 200, '600 bytes is a reason');
  },
);

t.test('an op_id outside the grammar is refused with a detail saying which rule it breaks', async (t) => {
  const send = await workNode(t);
  const cases: Array<[string, RegExp]> = [
    ['a b', /a space at byte 2/],
    ['café', /U\+00E9 at byte 4/],
    ['tab\there', /U\+0009 at byte 4/],
    ['o'.repeat(129), /is 129 bytes; at most 128/],
    ['o'.repeat(5000), /is 5000 bytes; at most 128/],
    ['', /is empty/],
  ];
  for (const [op, why] of cases) {
    for (const res of [
      await send('POST', '/work', { project: 'ENG', title: 'x', op_id: op }),
      await send('POST', `/work?op_id=${encodeURIComponent(op)}`, { project: 'ENG', title: 'x' }),
    ]) {
      t.equal(res.status, 400, JSON.stringify(op));
      t.equal(res.json['error'], 'op_id_invalid');
      t.match(res.json['detail'], why, JSON.stringify(res.json['detail']));
    }
  }
  const items = await send('GET', '/work?project=ENG');
  t.equal((items.json['items'] as unknown[]).length, 1, 'no refused create stored an item');
});
