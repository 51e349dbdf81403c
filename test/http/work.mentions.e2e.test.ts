/**
 * One reader of `@handle` (schema/work/mentions.ts): the same comment mentions the same seats in the wake
 * it sets off, the inbox's `mentioned` reason (and the per-person index it reads) and
 * `/work/activity?notified=`.
 */
import t from 'tap';
import { CI, OPS, call } from './fixtures/gateway-harness.js';
import { startWorkHarness } from './fixtures/work-harness.js';

type Json = Record<string, unknown>;

const post = (url: string, body: unknown, auth = CI) =>
  call(url, {
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

const inboxReasons = async (base: string) =>
  ((await call(`${base}/work/inbox`, { headers: { authorization: OPS } })).json?.items as Json[]).map(
    (r) => r.reason,
  );
const notified = async (base: string, handle: string) =>
  ((await call(`${base}/work/activity?notified=${handle}&kinds=item.commented`)).json?.records as Json[])
    .length;

t.test(
  'a mention in any case names the seat everywhere; a longer handle or an address does not',
  async (t) => {
    const w = await startWorkHarness(t);
    t.equal((await post(`${w.base}/work`, { project: 'ENG', title: 'Talk' })).status, 201);

    // `@adam` is another handle and `x@ada` an address: neither mentions ada, on any reading.
    await post(`${w.base}/work/ENG-1/comments`, { body: 'ask @adam, or mail x@ada.example' });
    t.same(await inboxReasons(w.base), [], 'no inbox row for ada');
    t.equal(await notified(w.base, 'ada'), 0, 'activity does not count ada notified');
    t.equal(await notified(w.base, 'adam'), 1, 'adam is');

    // `@Ada` and `@CODER` are mentions of ada and coder, as the wake reads them.
    await post(`${w.base}/work/ENG-1/comments`, { body: 'Over to @Ada and @CODER.' });
    t.same(await inboxReasons(w.base), ['mentioned'], 'the inbox reads @Ada as ada');
    t.equal(await notified(w.base, 'ada'), 1, 'activity counts ada notified');
    t.equal(await notified(w.base, 'coder'), 1, 'and coder');
    const woken = await w.until(w.inboxLength, (n) => n > 0);
    t.equal(woken, 1, 'the wake reads @CODER as coder (and adam is no seat)');
  },
);
