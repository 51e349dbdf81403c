import t from 'tap';
import { CredentialPool, retryAfterMs, type KeyLease } from '../../../actors/index.js';
import { CredentialPoolSnapshot as SnapshotSchema } from '../../../schema/index.js';

const env: Record<string, string> = {
  KEY_A: 'sk-value-a',
  KEY_B: 'sk-value-b',
  OPENAI_API_KEY: 'sk-env-openai',
  ANTHROPIC_API_KEY: 'sk-env-anthropic',
};
const resolve = (name: string): string | undefined => env[name];

function clock(start = Date.parse('2026-11-23T10:00:00Z')) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

function pool(apiKeys: string[] | undefined, type = 'openai', c = clock()) {
  return new CredentialPool({ provider: 'main', type, model: 'm', apiKeys, resolve, now: c.now });
}

function take(p: CredentialPool): KeyLease {
  const got = p.acquire();
  if (!got.ok) throw new Error(`no key: ${got.reason}`);
  return got.lease;
}

t.test('the least-loaded key is taken, and idle keys are rotated', async (t) => {
  const p = pool(['${KEY_A}', '${KEY_B}']);
  const first = take(p);
  const second = take(p);
  t.not(first.ref, second.ref, 'a second concurrent call takes the other key');
  first.succeeded();
  const third = take(p);
  t.equal(third.ref, first.ref, 'the idle key is less loaded than the busy one');
  second.succeeded();
  third.succeeded();
  const refs = [take(p), take(p)].map((l) => {
    l.succeeded();
    return l.ref;
  });
  t.same(new Set(refs), new Set(['KEY_A', 'KEY_B']), 'idle keys take turns');
});

t.test('a lease carries the resolved value; the snapshot names keys by reference only', async (t) => {
  const p = pool(['${KEY_A}', 'sk-literal-value', 'prefix-${KEY_B}']);
  const lease = take(p);
  t.equal(lease.value, 'sk-value-a');
  const snap = p.snapshot();
  t.same(
    snap.keys.map((k) => k.ref),
    ['KEY_A', 'api_keys[1]', 'api_keys[2]'],
  );
  t.equal(snap.keys[0]?.in_flight, 1);
  SnapshotSchema.parse({ main: snap });
  t.notMatch(JSON.stringify(snap), /sk-value|sk-literal/);
});

t.test('429 cools the key for Retry-After and the next key is used; the cooldown ends on time', async (t) => {
  const c = clock();
  const p = pool(['${KEY_A}', '${KEY_B}'], 'openai', c);
  const a = take(p);
  a.rateLimited(20_000);
  const snap = p.snapshot().keys[0]!;
  t.equal(snap.cooling_until, new Date(c.now() + 20_000).toISOString());
  t.equal(snap.reason, 'rate_limited');
  t.equal(snap.failures, 1);
  t.equal(take(p).ref, 'KEY_B');
  t.equal(take(p).ref, 'KEY_B', 'only B while A cools');
  c.advance(20_001);
  t.equal(p.snapshot().keys[0]!.cooling_until, null);
  t.equal(take(p).ref, 'KEY_A', 'A is back and least loaded');
});

t.test('429 without Retry-After cools for the default', async (t) => {
  const c = clock();
  const p = pool(['${KEY_A}'], 'openai', c);
  take(p).rateLimited(null);
  t.equal(p.snapshot().keys[0]!.cooling_until, new Date(c.now() + 30_000).toISOString());
  const none = p.acquire();
  t.same(none, { ok: false, reason: 'keys_cooling' });
});

t.test('401/403 back off doubling per refusal in a row, and a success resets it', async (t) => {
  const c = clock();
  const p = pool(['${KEY_A}'], 'openai', c);
  const cooldowns: number[] = [];
  for (let i = 0; i < 3; i += 1) {
    take(p).authRefused();
    const until = Date.parse(p.snapshot().keys[0]!.cooling_until!);
    cooldowns.push(until - c.now());
    t.equal(p.snapshot().keys[0]!.reason, 'auth_refused');
    c.advance(until - c.now() + 1);
  }
  t.same(cooldowns, [60_000, 120_000, 240_000]);
  t.equal(p.snapshot().keys[0]!.failures, 3);
  take(p).succeeded();
  t.equal(p.snapshot().keys[0]!.failures, 0);
  take(p).authRefused();
  t.equal(Date.parse(p.snapshot().keys[0]!.cooling_until!) - c.now(), 60_000, 'back to the first step');
});

t.test('cooldowns are capped', async (t) => {
  const c = clock();
  const p = pool(['${KEY_A}'], 'openai', c);
  take(p).rateLimited(10 * 24 * 3600 * 1000);
  t.equal(Date.parse(p.snapshot().keys[0]!.cooling_until!) - c.now(), 3_600_000);
});

t.test('empty api_keys fall back to OPENAI_API_KEY / ANTHROPIC_API_KEY', async (t) => {
  const openai = take(pool([], 'openai'));
  t.same([openai.ref, openai.value], ['OPENAI_API_KEY', 'sk-env-openai']);
  const anthropic = take(pool(undefined, 'anthropic'));
  t.same([anthropic.ref, anthropic.value], ['ANTHROPIC_API_KEY', 'sk-env-anthropic']);
  const compatible = take(pool([], 'openai-compatible'));
  t.equal(compatible.value, null, 'an openai-compatible entry without keys sends none');
});

t.test('a reference that resolves to nothing is skipped and shown as unresolved', async (t) => {
  const p = pool(['${MISSING}', '${KEY_B}']);
  t.equal(take(p).ref, 'KEY_B');
  t.match(p.snapshot().keys[0], { ref: 'MISSING', reason: 'unresolved', cooling_until: null });
  t.same(pool(['${MISSING}']).acquire(), { ok: false, reason: 'no_key', unresolved: ['MISSING'] });
});

t.test('cooldowns carry over to a rebuilt pool for keys written the same way', async (t) => {
  const c = clock();
  const old = pool(['${KEY_A}', '${KEY_B}'], 'openai', c);
  take(old).rateLimited(5_000);
  const next = new CredentialPool({
    provider: 'main',
    type: 'openai',
    model: 'other-model',
    apiKeys: ['${KEY_B}', '${KEY_A}'],
    resolve,
    now: c.now,
  });
  next.carryFrom(old);
  t.match(next.snapshot().keys, [
    { ref: 'KEY_B', cooling_until: null },
    { ref: 'KEY_A', reason: 'rate_limited' },
  ]);
});

t.test('a lease ends once: a second outcome changes nothing', async (t) => {
  const p = pool(['${KEY_A}']);
  const lease = take(p);
  lease.succeeded();
  lease.rateLimited(1000);
  t.match(p.snapshot().keys[0], { cooling_until: null, in_flight: 0, failures: 0 });
});

t.test(
  'Retry-After is read as seconds, as an HTTP date, or as retry-after-ms; no wait ahead is no value',
  async (t) => {
    const now = Date.parse('2026-11-23T10:00:00Z');
    const headers =
      (values: Record<string, string> = {}) =>
      (name: string) =>
        values[name] ?? null;
    t.equal(retryAfterMs(headers({ 'retry-after': '12' }), now), 12_000);
    t.equal(retryAfterMs(headers({ 'retry-after': '1.5' }), now), 1500);
    t.equal(retryAfterMs(headers({ 'retry-after': 'Mon, 23 Nov 2026 10:01:30 GMT' }), now), 90_000);
    t.equal(
      retryAfterMs(headers({ 'retry-after': 'Mon, 23 Nov 2026 09:00:00 GMT' }), now),
      null,
      'a past date',
    );
    for (const value of ['0', '-5', 'abc', '+3'])
      t.equal(retryAfterMs(headers({ 'retry-after': value }), now), null, `no usable wait in ${value}`);
    t.equal(
      retryAfterMs(headers({ 'retry-after-ms': '0', 'retry-after': '3' }), now),
      3000,
      'a zero ms falls back',
    );
    t.equal(retryAfterMs(headers({ 'retry-after-ms': '250', 'retry-after': '1' }), now), 250);
    t.equal(retryAfterMs(headers({ 'retry-after': 'soon' }), now), null);
    t.equal(retryAfterMs(headers(), now), null);
  },
);

t.test('usableAgainAt: the first key to stop cooling, only when every resolvable key cools', async (t) => {
  const c = clock();
  const p = pool(['${KEY_A}', '${KEY_B}', '${UNSET}'], 'openai', c);
  t.equal(p.usableAgainAt(), null, 'a key is usable now');
  take(p).rateLimited(50_000);
  t.equal(p.usableAgainAt(), null, 'the other key is still usable');
  take(p).rateLimited(20_000);
  t.equal(p.usableAgainAt(), c.now() + 20_000, 'the unresolved key does not count');
  c.advance(20_000);
  t.equal(p.usableAgainAt(), null, 'the cooldown ended');
  t.equal(pool(['${UNSET}']).usableAgainAt(), null, 'no key resolves: waiting does not help');
});

t.test(
  'a success clears the cooldown only when its call started after the refusal: an older call in flight does not',
  async (t) => {
    const c = clock();
    const p = pool(['${KEY_A}'], 'openai', c);
    const older = take(p);
    const refused = take(p);
    refused.rateLimited(20_000);
    older.succeeded();
    const snap = p.snapshot().keys[0]!;
    t.equal(snap.cooling_until, new Date(c.now() + 20_000).toISOString(), 'still cooling');
    t.equal(snap.reason, 'rate_limited');
    t.same(p.acquire(), { ok: false, reason: 'keys_cooling' });
    c.advance(20_001);
    const after = take(p);
    after.succeeded();
    t.equal(p.snapshot().keys[0]!.failures, 0, 'a call started after the cooldown clears the count');
  },
);

t.test(
  'a rotated value lifts an auth refusal of the old one, not a rate limit; a late refusal of the old value is ignored',
  async (t) => {
    const values: Record<string, string> = { KEY_R: 'sk-old', KEY_L: 'sk-limited' };
    const c = clock();
    const p = new CredentialPool({
      provider: 'main',
      type: 'openai',
      model: 'm',
      apiKeys: ['${KEY_R}', '${KEY_L}'],
      resolve: (name) => values[name],
      now: c.now,
    });
    const refused = take(p);
    const limited = take(p);
    t.equal(refused.ref, 'KEY_R');
    const inFlight = take(p); // KEY_R again (least loaded of equals), the old value still in its hand
    refused.authRefused();
    limited.rateLimited(120_000);
    t.match(p.snapshot().keys, [{ reason: 'auth_refused', failures: 1 }, { reason: 'rate_limited' }]);

    values['KEY_R'] = 'sk-new';
    values['KEY_L'] = 'sk-limited-new';
    t.match(
      p.snapshot().keys,
      [
        { ref: 'KEY_R', cooling_until: null, reason: null, failures: 0 },
        { ref: 'KEY_L', reason: 'rate_limited' },
      ],
      'the new value has no refusal; the rate limit stays',
    );
    inFlight.authRefused();
    t.equal(p.snapshot().keys[0]?.reason, null, 'a refusal of the old value does not cool the new one');
    const next = take(p);
    t.same([next.ref, next.value], ['KEY_R', 'sk-new']);
    next.authRefused();
    t.match(p.snapshot().keys[0], { reason: 'auth_refused', failures: 1 }, 'the new value refused cools');
    t.equal(
      Date.parse(p.snapshot().keys[0]!.cooling_until!) - c.now(),
      60_000,
      'its backoff starts over (the old streak was of the old value)',
    );
    values['KEY_R'] = 'sk-old';
    t.equal(p.snapshot().keys[0]?.reason, null, 'putting any other value back lifts it too');
  },
);
