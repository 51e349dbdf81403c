import t from 'tap';
import { ApiError, type AnsweredRequest, type RouteDef } from '../../http/index.js';
import { openConnection } from '../harness/raw-http.js';
import { OPS, startHarness } from './fixtures/gateway-harness.js';

const handled: string[] = [];
const routes: RouteDef[] = [
  {
    method: 'PUT',
    pattern: '/things/:id',
    maxBodyBytes: 16,
    beforeBody: (req) => {
      if (req.params['id'] === 'refused') throw new ApiError('invalid_name', { detail: 'not a thing id' });
      if (req.params['id'] === 'broken') throw new Error('a bug');
    },
    handler: (req) => {
      handled.push(req.body.toString());
      return { status: 200, body: { got: req.body.toString() } };
    },
  },
];

t.test(
  'a route refuses before its body is read: at once, with its code, the connection closed behind it',
  async (t) => {
    const h = await startHarness({ routes });
    t.teardown(() => h.gw.close());
    const conn = await openConnection(h.gw.port);
    t.teardown(() => conn.close());
    // The body would take forever (and is over the limit): the refusal does not wait for it.
    conn.write(
      `PUT /things/refused HTTP/1.1\r\nHost: x\r\nAuthorization: ${OPS}\r\nContent-Length: 100\r\n\r\nabc`,
    );
    const answer = await conn.response();
    t.equal(answer.status, 400);
    t.equal((JSON.parse(answer.body) as { error: string }).error, 'invalid_name');
    t.equal(answer.headers['connection'], 'close');
    t.same(handled, [], 'the handler never ran');
  },
);

t.test('the guard runs first; a route that passes its checks reads its body as usual', async (t) => {
  const h = await startHarness({ routes });
  t.teardown(() => h.gw.close());
  const anonymous = await fetch(`${h.base}/things/refused`, { method: 'PUT', body: 'x' });
  t.equal(anonymous.status, 401);
  const ok = await fetch(`${h.base}/things/fine`, {
    method: 'PUT',
    body: 'hello',
    headers: { authorization: OPS },
  });
  t.same(await ok.json(), { got: 'hello' });
  const big = await fetch(`${h.base}/things/fine`, {
    method: 'PUT',
    body: 'x'.repeat(17),
    headers: { authorization: OPS },
  });
  t.equal(big.status, 413);
  t.match(await big.json(), { error: 'body_too_large', max_bytes: 16 });
});

t.test(
  'a check that fails with something other than an ApiError answers 500 without running the handler, ' +
    'counted and logged with its route and operator',
  async (t) => {
    const answered: AnsweredRequest[] = [];
    const h = await startHarness({ routes, observer: { answered: (r) => void answered.push(r) } });
    t.teardown(() => h.gw.close());
    const before = handled.length;
    const res = await fetch(`${h.base}/things/broken`, {
      method: 'PUT',
      body: 'x',
      headers: { authorization: OPS },
    });
    t.equal(res.status, 500);
    t.equal(handled.length, before);
    const failed = await h.waitForLog((l) => l['event'] === 'handler_failed');
    t.match(failed, { route: '/things/:id', operator: 'ops', path: '/things/broken' });
    t.match(answered, [{ method: 'PUT', route: '/things/:id', status: 500 }], 'the 500 is counted');
  },
);
