/**
 * The app flow's signed `state`: it names the seat, who began the flow and the app the seat held then,
 * lives 30 minutes, and is refused when altered, signed under another seed, or expired.
 */
import { randomBytes } from 'node:crypto';
import t from 'tap';
import { STATE_TTL_MS, stateSigner } from '../../../http/webhooks/app-state.js';

const operator = { id: 'ops', kind: 'operator' } as const;

t.test('a state carries its seat, who began the flow and the app it was issued against', async (t) => {
  const signer = stateSigner(randomBytes(32));
  t.same(signer.check(signer.issue('ada', operator, '42')), { handle: 'ada', by: operator, app: '42' });
  t.same(signer.check(signer.issue('ada', null, '')), { handle: 'ada', by: null, app: '' }, 'none: empty');
});

t.test('a state is good for 30 minutes, then expired', async (t) => {
  const signer = stateSigner(randomBytes(32));
  const now = Date.parse('2026-01-01T00:00:00Z');
  const state = signer.issue('ada', operator, '', now);
  t.ok(signer.check(state, now + STATE_TTL_MS), 'good at the end of its 30 minutes');
  t.equal(signer.check(state, now + STATE_TTL_MS + 1), null, 'expired a millisecond later');
  t.equal(STATE_TTL_MS, 30 * 60 * 1000);
});

t.test('an altered state, or one another seed signed, is refused', async (t) => {
  const seed = randomBytes(32);
  const signer = stateSigner(seed);
  const state = signer.issue('ada', operator, '42');
  const [body, sig] = state.split('.') as [string, string];
  const claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Record<string, unknown>;
  const rewritten = (change: Record<string, unknown>) =>
    `${Buffer.from(JSON.stringify({ ...claims, ...change })).toString('base64url')}.${sig}`;
  t.equal(signer.check(rewritten({ h: 'bo' })), null, 'another seat');
  t.equal(signer.check(rewritten({ a: '' })), null, 'another app: a spent state cannot be made fresh');
  t.equal(signer.check(rewritten({ exp: Number(claims['exp']) + 60_000 })), null, 'a longer life');
  t.equal(stateSigner(randomBytes(32)).check(state), null, 'another fleet’s seed');
  t.ok(stateSigner(seed).check(state), 'a node deriving the same seed accepts it');
  for (const bad of ['', '.', `${body}.`, `${body}.${sig}.x`, `${body}.${sig}=`, 'x'.repeat(2000)])
    t.equal(signer.check(bad), null, `malformed: ${JSON.stringify(bad.slice(0, 20))}`);
});
